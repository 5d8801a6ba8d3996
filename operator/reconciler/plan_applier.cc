// PlanApplier (plan_applier.h): one API call per action, errors as values;
// "already done" answers (a kept version that exists, one already deleted, an
// object deleted since it was planned) count as done.
#include "plan_applier.h"

#include <algorithm>
#include <vector>

#include "ax/kube/conflict_retry.h"
#include "ax/kube/owner_references.h"
#include "watched_kinds.h"

namespace ax::controller {
namespace {

using nlohmann::json;

void Fail(ApplyResult& result, ReconcileStage stage, const kube::Error& e) {
  if (result.failed) return;
  result.failed = stage;
  result.error = e;
}

kube::EventType ToKube(EventType type) {
  return type == EventType::kWarning ? kube::EventType::kWarning
                                     : kube::EventType::kNormal;
}

struct StatusOrder {
  std::vector<const StatusUpdate*> updates;
  size_t with_events = 0;  // the first ones
};

// The statuses with an Event first, then the rest by Kind/name from just
// after `resume_after` round to just before it (Apply in plan_applier.h).
StatusOrder WriteOrder(const Plan& plan, const std::string& resume_after) {
  std::set<std::string> with_events;
  for (const Event& e : plan.events) with_events.insert(e.object.KindName());
  std::vector<std::pair<std::string, const StatusUpdate*>> keyed;
  keyed.reserve(plan.status_updates.size());
  for (const StatusUpdate& u : plan.status_updates) {
    keyed.emplace_back(u.object.KindName(), &u);
  }
  std::sort(keyed.begin(), keyed.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  const auto after = std::upper_bound(
      keyed.begin(), keyed.end(), resume_after,
      [](const std::string& key, const auto& u) { return key < u.first; });
  std::rotate(keyed.begin(), after, keyed.end());
  const auto rest = std::stable_partition(
      keyed.begin(), keyed.end(),
      [&](const auto& u) { return with_events.count(u.first) > 0; });
  StatusOrder order;
  order.with_events = rest - keyed.begin();
  order.updates.reserve(keyed.size());
  for (const auto& u : keyed) order.updates.push_back(u.second);
  return order;
}

}  // namespace

PlanApplier::PlanApplier(kube::Client& client, kube::EventRecorder& events,
                         std::function<bool()> may_write, json owner_references,
                         std::chrono::milliseconds status_slice)
    : client_(client),
      events_(events),
      may_write_(std::move(may_write)),
      owner_references_(std::move(owner_references)),
      status_slice_(status_slice) {}

json PlanApplier::Owned(json config_map) const {
  kube::AddOwnerReferences(owner_references_, &config_map);
  return config_map;
}

bool PlanApplier::MayWrite(ApplyResult& result) {
  if (!may_write_ || may_write_()) return true;
  result.stopped = true;
  return false;
}

ApplyResult PlanApplier::Apply(const Plan& plan, const std::string& ns,
                               WrittenObjects& written,
                               const std::function<bool()>& changed) {
  ApplyResult result;
  // Statuses and Events describe the table in force after the plan: when it
  // could not be written, they would describe one that is not.
  result.route_table_written = PublishRouteTable(plan, ns, written, result);
  if (!result.route_table_written) return result;
  WriteStatuses(plan, written, changed, result);
  RecordEvents(plan, result);
  return result;
}

bool PlanApplier::PublishRouteTable(const Plan& plan, const std::string& ns,
                                    WrittenObjects& written,
                                    ApplyResult& result) {
  const kube::Resource config_maps = kube::ConfigMaps().In(ns);
  if (plan.route_table) {
    if (!MayWrite(result)) return false;
    // The plan keeps the references of the ConfigMap it replaces; one from
    // before there was an owner gets the owner's here.
    const json cm = Owned(*plan.route_table);
    const json meta = cm.value("metadata", json::object());
    const std::string name = meta.value("name", std::string());
    // With a resourceVersion the plan read one: replace exactly that one.
    auto wrote = meta.contains("resourceVersion")
                     ? client_.Update(config_maps.Named(name), cm)
                     : client_.Create(config_maps, cm);
    ++result.writes;
    if (!wrote) {
      Fail(result, ReconcileStage::kPublish, wrote.error());
      if (wrote.error().IsConflict() || wrote.error().IsAlreadyExists()) {
        result.conflict = true;
        // Plan again on what won, even before the informer shows it.
        if (auto current = client_.Get(config_maps.Named(name))) {
          written.Record(*current, WrittenObjects::Clock::now());
        }
      }
      return false;
    }
    written.Record(*wrote, WrittenObjects::Clock::now());
    result.published = true;
  }
  for (const json& cm : plan.history_creates) {
    if (!MayWrite(result)) return false;
    auto created = client_.Create(config_maps, Owned(cm));
    ++result.writes;
    if (created) {
      written.Record(*created, WrittenObjects::Clock::now());
    } else if (!created.error().IsAlreadyExists()) {
      Fail(result, ReconcileStage::kPublish, created.error());
    }
  }
  for (const std::string& name : plan.history_deletes) {
    if (!MayWrite(result)) return false;
    auto deleted = client_.Delete(config_maps.Named(name));
    ++result.writes;
    if (!deleted && !deleted.error().IsNotFound()) {
      Fail(result, ReconcileStage::kPublish, deleted.error());
    }
  }
  return true;
}

void PlanApplier::WriteStatuses(const Plan& plan, WrittenObjects& written,
                                const std::function<bool()>& changed,
                                ApplyResult& result) {
  const StatusOrder order = WriteOrder(plan, resume_after_);
  const auto started = std::chrono::steady_clock::now();
  for (size_t i = 0; i < order.updates.size(); ++i) {
    if (!MayWrite(result)) return;
    // At least one write a pass, so that passes giving way still progress.
    if (i > 0 && changed &&
        std::chrono::steady_clock::now() - started >= status_slice_ &&
        changed()) {
      for (size_t rest = i; rest < order.updates.size(); ++rest) {
        result.unwritten.insert(order.updates[rest]->object.KindName());
      }
      return;
    }
    const StatusUpdate& u = *order.updates[i];
    if (i >= order.with_events) resume_after_ = u.object.KindName();
    auto wrote = WriteStatus(u);
    ++result.writes;
    if (wrote) {
      written.Record(*wrote, WrittenObjects::Clock::now());
    } else if (!wrote.error().IsNotFound()) {  // deleted since: nothing to do
      Fail(result, ReconcileStage::kStatus, wrote.error());
    }
  }
}

kube::Result<json> PlanApplier::WriteStatus(const StatusUpdate& u) {
  const kube::Resource object =
      GslbResource(u.object.kind, u.object.namespace_name).Named(u.object.name);
  // A PUT to /status keeps everything but the status from the stored object,
  // so the plan's whole desired status at the resourceVersion it read is
  // enough: one call in the common case.
  if (!u.object.resource_version.empty()) {
    const json body = {{"apiVersion", u.object.api_version},
                       {"kind", u.object.kind},
                       {"metadata",
                        {{"name", u.object.name},
                         {"namespace", u.object.namespace_name},
                         {"resourceVersion", u.object.resource_version}}},
                       {"status", u.status}};
    auto wrote = client_.UpdateStatus(object, body);
    if (wrote || !wrote.error().IsConflict()) return wrote;
  }
  // Changed since it was read (sidecars rewrite ProbeReports all the time):
  // re-read and retry, as RetryOnConflict.
  return kube::UpdateWithRetry(
      client_, object,
      [&u](json& current) {
        if (current.value("status", json()) == u.status) return false;
        current["status"] = u.status;
        return true;
      },
      kube::UpdateTarget::kStatus);
}

void PlanApplier::RecordEvents(const Plan& plan, ApplyResult& result) {
  for (const Event& e : plan.events) {
    if (!MayWrite(result)) return;
    if (result.unwritten.count(e.object.KindName())) continue;
    const kube::ObjectReference about{e.object.api_version, e.object.kind,
                                      e.object.namespace_name, e.object.name,
                                      e.object.uid};
    auto recorded = events_.Record(about, ToKube(e.type), e.reason, e.message);
    ++result.writes;
    if (!recorded) Fail(result, ReconcileStage::kStatus, recorded.error());
  }
}

}  // namespace ax::controller
