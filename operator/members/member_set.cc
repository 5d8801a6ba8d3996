// MemberSet (member_set.h): Secrets -> links, copies -> links, links ->
// reports and metrics.
#include "member_set.h"

#include <set>

#include "ax/runtime/clock.h"
#include "ax/runtime/log.h"
#include "ax/runtime/metric_family.h"
#include "member_copies.h"

namespace ax::controller {
namespace {

using nlohmann::json;

}  // namespace

MemberSet::MemberSet(kube::Client& client, kube::EventRecorder& events,
                     MemberSetOptions options, std::function<void()> on_change)
    : client_(client),
      events_(events),
      options_(std::move(options)),
      on_change_(std::move(on_change)) {
  kube::ListWatchOptions selected;
  selected.label_selector = options_.selector;
  kube::InformerOptions informer;
  informer.on_change = [this] { SyncLinks(); };
  informer.reflector.on_error = [](const kube::Error& e) {
    runtime::Log(runtime::LogLevel::kWarn, "watch failed",
                 {{"resource", "secrets"}, {"error", e.ToString()}});
  };
  secrets_ = std::make_unique<kube::Informer>(
      client_, kube::Secrets().In(options_.namespace_name), std::move(selected),
      std::move(informer));
}

MemberSet::~MemberSet() { Stop(); }

void MemberSet::Start() { secrets_->Start(); }

void MemberSet::Stop() {
  secrets_->Stop();
  std::lock_guard lock(mu_);
  stopped_ = true;
  links_.clear();  // each stops
}

void MemberSet::SyncLinks() {
  std::set<std::string> seen;
  bool changed = false;
  std::lock_guard lock(mu_);
  if (stopped_) return;
  for (const kube::ObjectPtr& secret : secrets_->List()) {
    json typed = *secret;
    typed["metadata"]["namespace"] = options_.namespace_name;
    const json& meta = typed["metadata"];
    const std::string name = meta.value("name", std::string());
    const std::string version = meta.value("resourceVersion", std::string());
    seen.insert(name);
    if (auto it = links_.find(name);
        it != links_.end() && it->second->spec().secret_version == version) {
      continue;
    }
    if (auto it = unusable_.find(name);
        it != unusable_.end() && it->second.first == version) {
      continue;
    }
    changed = true;
    links_.erase(name);  // stops the old one: new credentials, new link
    unusable_.erase(name);
    MemberSpecResult parsed = ParseMemberSecret(typed, options_.namespace_name);
    if (!parsed.spec) {
      MemberStatus status;
      status.name = name;
      status.health = MemberHealth::kBlocked;
      status.error = parsed.error;
      status.failures = 1;
      unusable_[name] = {version, status};
      MemberSpec about;
      about.name = name;
      about.secret = kube::ReferenceTo(typed);
      about.secret.api_version = "v1";
      about.secret.kind = "Secret";
      runtime::Log(runtime::LogLevel::kError, "member cluster blocked",
                   {{"member", name},
                    {"reason", "MemberConfigInvalid"},
                    {"error", parsed.error}});
      Blocked(about, "MemberConfigInvalid", parsed.error);
      continue;
    }
    runtime::Log(runtime::LogLevel::kInfo, "member cluster",
                 {{"member", name},
                  {"apiserver", parsed.spec->config.server},
                  {"namespace", parsed.spec->namespace_name},
                  {"secret_version", version}});
    auto link = std::make_unique<MemberLink>(
        std::move(*parsed.spec), options_.link, kube::OsSeededRandom(),
        on_change_,
        [this](const MemberSpec& spec, std::string_view reason,
               const std::string& message) { Blocked(spec, reason, message); },
        [] { return runtime::WallMs(); });
    link->Start();
    if (copies_) link->Offer(copies_);
    links_[name] = std::move(link);
  }
  for (auto it = links_.begin(); it != links_.end();) {
    if (seen.count(it->first)) {
      ++it;
      continue;
    }
    runtime::Log(runtime::LogLevel::kInfo,
                 "member cluster removed; its copies stay where they are",
                 {{"member", it->first}});
    it = links_.erase(it);
    changed = true;
  }
  std::erase_if(unusable_, [&](const auto& u) { return !seen.count(u.first); });
  if (changed && on_change_) on_change_();
}

void MemberSet::Blocked(const MemberSpec& spec, std::string_view reason,
                        const std::string& message) {
  std::lock_guard lock(events_mu_);
  auto recorded =
      events_.Record(spec.secret, kube::EventType::kWarning, reason, message);
  if (!recorded) {
    runtime::Log(
        runtime::LogLevel::kWarn, "event not recorded",
        {{"member", spec.name}, {"error", recorded.error().ToString()}});
  }
}

void MemberSet::Offer(const json& route_table, const std::vector<json>& nodes) {
  auto copies = std::make_shared<const std::vector<json>>(
      MemberConfigMaps(route_table, nodes, options_.route_table));
  std::lock_guard lock(mu_);
  if (copies_ && *copies_ == *copies) return;  // nothing new to hold
  copies_ = std::move(copies);
  for (auto& [name, link] : links_) link->Offer(copies_);
}

void MemberSet::Idle() {
  std::lock_guard lock(mu_);
  copies_.reset();
  for (auto& [name, link] : links_) link->Offer(nullptr);
}

void MemberSet::AddProbeReports(std::vector<json>& out) const {
  std::lock_guard lock(mu_);
  for (const auto& [name, link] : links_) {
    for (json& report : link->ProbeReports()) out.push_back(std::move(report));
  }
}

std::vector<MemberStatus> MemberSet::Statuses() const {
  std::lock_guard lock(mu_);
  std::vector<MemberStatus> out;
  for (const auto& [name, link] : links_) out.push_back(link->Status());
  for (const auto& [name, unusable] : unusable_) out.push_back(unusable.second);
  return out;
}

std::vector<prometheus::MetricFamily> MemberSet::Families() const {
  using prometheus::MetricType;
  using runtime::AddSample;
  using runtime::Family;
  auto up = Family("ax_operator_member_up",
                   "1 when the last sync with the member cluster went through",
                   MetricType::Gauge);
  auto blocked = Family(
      "ax_operator_member_blocked",
      "1 when the member refused or cannot use the credentials of its Secret "
      "(not retried until the Secret changes)",
      MetricType::Gauge);
  auto version = Family("ax_operator_member_route_table_version",
                        "the route-table version the member cluster holds",
                        MetricType::Gauge);
  auto confirmed =
      Family("ax_operator_member_confirmed_timestamp_seconds",
             "when the member's route-table copy was last confirmed current",
             MetricType::Gauge);
  auto reports = Family("ax_operator_member_probe_reports",
                        "ProbeReports last listed in the member cluster",
                        MetricType::Gauge);
  auto failures =
      Family("ax_operator_member_sync_failures_total",
             "failed syncs with the member cluster", MetricType::Counter);
  {
    std::lock_guard lock(mu_);
    if (!copies_) return {};  // followers hold nothing
  }
  for (const MemberStatus& s : Statuses()) {
    const runtime::MetricLabels member = {{"member", s.name}};
    AddSample(up, s.health == MemberHealth::kUp ? 1 : 0, member);
    AddSample(blocked, s.health == MemberHealth::kBlocked ? 1 : 0, member);
    AddSample(version, static_cast<double>(s.version), member);
    AddSample(confirmed, s.confirmed_at_ms / 1000.0, member);
    AddSample(reports, static_cast<double>(s.probe_reports), member);
    AddSample(failures, static_cast<double>(s.failures), member);
  }
  return {std::move(up),        std::move(blocked), std::move(version),
          std::move(confirmed), std::move(reports), std::move(failures)};
}

}  // namespace ax::controller
