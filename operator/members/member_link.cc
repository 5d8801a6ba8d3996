// MemberLink (member_link.h): the wait loop, one sync (copies, then the
// ProbeReports), and how failures are told apart: refused credentials block,
// anything else is retried with backoff.
#include "member_link.h"

#include "ax/api_kinds.h"
#include "ax/controller/observed_state.h"
#include "ax/kube/resource.h"
#include "ax/rfc3339.h"
#include "ax/route_table_configmap.h"
#include "ax/runtime/log.h"
#include "member_copies.h"

namespace ax::controller {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

kube::Resource ProbeReportsIn(const std::string& ns) {
  return kube::Resource{kApiGroup, kApiGroupVersion,
                        std::string(ApiPlural("ProbeReport"))}
      .In(ns);
}

json Annotations(const json& copy) {
  return copy.value("metadata", json::object())
      .value("annotations", json::object());
}

bool IsRouteTableCopy(const json& copy) {
  return Annotations(copy).contains(kSnapshotVersionAnnotation);
}

uint64_t VersionOf(const json& copy) {
  const std::string v =
      Annotations(copy).value(kSnapshotVersionAnnotation, std::string("0"));
  try {
    return std::stoull(v);
  } catch (...) {
    return 0;
  }
}

std::string NameOf(const json& copy) {
  return copy.value("metadata", json::object()).value("name", std::string());
}

}  // namespace

const char* MemberHealthName(MemberHealth health) {
  switch (health) {
    case MemberHealth::kIdle:
      return "idle";
    case MemberHealth::kSyncing:
      return "syncing";
    case MemberHealth::kUp:
      return "up";
    case MemberHealth::kUnreachable:
      return "unreachable";
    case MemberHealth::kBlocked:
      return "blocked";
  }
  return "unknown";
}

MemberLink::MemberLink(MemberSpec spec, MemberLinkOptions options,
                       kube::Random random, OnReports on_reports,
                       OnBlocked on_blocked, WallClock wall)
    : spec_(std::move(spec)),
      options_(options),
      on_reports_(std::move(on_reports)),
      on_blocked_(std::move(on_blocked)),
      wall_(std::move(wall)),
      backoff_(options.backoff, std::move(random)) {
  status_.name = spec_.name;
}

MemberLink::~MemberLink() { Stop(); }

void MemberLink::Start() {
  if (thread_.joinable()) return;
  thread_ = std::thread([this] { Run(); });
}

void MemberLink::Stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  cancel_.Cancel();
  if (thread_.joinable()) thread_.join();
}

void MemberLink::Offer(MemberCopies copies) {
  {
    std::lock_guard lock(mu_);
    copies_ = std::move(copies);
    offered_ = true;
    if (!copies_ && status_.health != MemberHealth::kBlocked) {
      status_.health = MemberHealth::kIdle;
    }
  }
  wake_.notify_all();
}

std::vector<json> MemberLink::ProbeReports() const {
  std::lock_guard lock(mu_);
  return reports_;
}

MemberStatus MemberLink::Status() const {
  std::lock_guard lock(mu_);
  return status_;
}

void MemberLink::Run() {
  kube::ClientOptions client_options;
  client_options.user_agent = "ax-operator";
  client_options.request_timeout = options_.request_timeout;
  client_options.connect_timeout = options_.request_timeout;
  auto client = kube::Client::Create(spec_.config, client_options);
  if (!client) {
    Block("MemberConfigInvalid", client.error().ToString());
  } else {
    client_ = std::move(*client);
  }
  std::unique_lock lock(mu_);
  Clock::time_point next = Clock::now();
  while (!stopping_) {
    if (!copies_ || status_.health == MemberHealth::kBlocked) {
      // Idle until leading; blocked until the Secret replaces this link.
      wake_.wait(lock, [this] {
        return stopping_ || (offered_ && copies_ &&
                             status_.health != MemberHealth::kBlocked);
      });
      continue;
    }
    wake_.wait_until(lock, next, [this] { return stopping_ || offered_; });
    if (stopping_ || !copies_) continue;
    offered_ = false;
    if (status_.health == MemberHealth::kIdle) {
      status_.health = MemberHealth::kSyncing;
    }
    const MemberCopies copies = copies_;
    lock.unlock();
    const bool ok = Sync(copies);
    lock.lock();
    next = Clock::now() + (ok ? options_.sync : backoff_.Next());
    if (ok) backoff_.Reset();
  }
}

bool MemberLink::Sync(const MemberCopies& copies) {
  for (const json& copy : *copies) {
    {
      // Lost the lead (or newer copies came) meanwhile: write nothing more.
      std::lock_guard lock(mu_);
      if (copies_ != copies) return true;
    }
    const std::string name = NameOf(copy);
    const bool route_table = IsRouteTableCopy(copy);
    const auto it = written_.find(name);
    const bool changed = it == written_.end() || it->second != copy;
    if (!changed && !(route_table && Clock::now() >= confirm_due_)) continue;
    if (auto held = Hold(copy); !held) {
      Failed(held.error());
      return false;
    }
    written_[name] = copy;
    if (route_table) {
      confirm_due_ = Clock::now() + options_.heartbeat;
      std::lock_guard lock(mu_);
      status_.version = VersionOf(copy);
      status_.confirmed_at_ms = wall_();
    }
  }
  if (auto listed = ListReports(); !listed) {
    Failed(listed.error());
    return false;
  }
  std::lock_guard lock(mu_);
  if (status_.health == MemberHealth::kUnreachable) {
    runtime::Log(runtime::LogLevel::kInfo, "member cluster reachable again",
                 {{"member", spec_.name}, {"failures", status_.failures}});
  }
  status_.health = MemberHealth::kUp;
  status_.error.clear();
  return true;
}

kube::Result<void> MemberLink::Hold(const json& copy) {
  const kube::CallOptions call{options_.request_timeout, &cancel_};
  const std::string name = NameOf(copy);
  const kube::Resource config_maps =
      kube::ConfigMaps().In(spec_.namespace_name);
  json body = copy;
  body["metadata"]["namespace"] = spec_.namespace_name;
  const bool route_table = IsRouteTableCopy(copy);
  if (route_table) {
    body["metadata"]["annotations"][kConfirmedAtAnnotation] =
        FormatRfc3339Ms(wall_());
  }
  auto current = client_->Get(config_maps.Named(name), call);
  if (!current) {
    if (!current.error().IsNotFound()) return current.error();
    auto created = client_->Create(config_maps, body, call);
    if (!created) return created.error();
    return {};
  }
  if (route_table && VersionOf(*current) > VersionOf(copy)) {
    // A newer leader wrote a later version: versions only go up.
    return {};
  }
  if (HoldsCopy(*current, copy)) {
    if (!route_table) return {};
    // Only the confirmation moves: a small patch, not the whole table.
    auto patched = client_->MergePatch(
        config_maps.Named(name),
        {{"metadata",
          {{"annotations",
            {{kConfirmedAtAnnotation,
              body["metadata"]["annotations"][kConfirmedAtAnnotation]}}}}}},
        call);
    if (!patched) return patched.error();
    return {};
  }
  body["metadata"]["resourceVersion"] =
      (*current)["metadata"].value("resourceVersion", std::string());
  auto updated = client_->Update(config_maps.Named(name), body, call);
  if (!updated) return updated.error();
  if (route_table) {
    runtime::Log(runtime::LogLevel::kInfo, "route table published to member",
                 {{"member", spec_.name},
                  {"namespace", spec_.namespace_name},
                  {"version", VersionOf(copy)}});
  }
  return {};
}

kube::Result<void> MemberLink::ListReports() {
  kube::ListOptions options;
  options.call = {options_.request_timeout, &cancel_};
  auto listed = client_->List(ProbeReportsIn(spec_.namespace_name), options);
  if (!listed) return listed.error();
  std::map<std::string, std::string> versions;
  std::vector<json> reports;
  for (json& item : listed->items) {
    json& meta = item["metadata"];
    versions[meta.value("name", std::string())] =
        meta.value("resourceVersion", std::string());
    meta["annotations"][kMemberAnnotation] = spec_.name;
    item["apiVersion"] = kApiVersion;
    item["kind"] = "ProbeReport";
    reports.push_back(std::move(item));
  }
  const bool changed = versions != report_versions_;
  report_versions_ = std::move(versions);
  {
    std::lock_guard lock(mu_);
    status_.probe_reports = reports.size();
    reports_ = std::move(reports);
  }
  if (changed && on_reports_) on_reports_();
  return {};
}

void MemberLink::Failed(const kube::Error& error) {
  if (error.IsCanceled()) return;  // stopping
  if (error.IsForbidden() || error.IsUnauthorized()) {
    Block(error.IsForbidden() ? "MemberForbidden" : "MemberUnauthorized",
          "member " + spec_.name + " (namespace " + spec_.namespace_name +
              ") refused the credentials of its Secret: " + error.ToString() +
              "; not retried until the Secret changes");
    return;
  }
  std::lock_guard lock(mu_);
  ++status_.failures;
  status_.error = error.ToString();
  if (status_.health != MemberHealth::kUnreachable) {
    runtime::Log(runtime::LogLevel::kWarn,
                 "member cluster unreachable; it keeps serving its last "
                 "route table, retrying with backoff",
                 {{"member", spec_.name}, {"error", status_.error}});
  }
  status_.health = MemberHealth::kUnreachable;
}

void MemberLink::Block(std::string_view reason, const std::string& message) {
  {
    std::lock_guard lock(mu_);
    ++status_.failures;
    status_.health = MemberHealth::kBlocked;
    status_.error = message;
  }
  runtime::Log(runtime::LogLevel::kError, "member cluster blocked",
               {{"member", spec_.name},
                {"reason", std::string(reason)},
                {"error", message}});
  if (on_blocked_) on_blocked_(spec_, reason, message);
}

}  // namespace ax::controller
