// PlanApplier (plan_applier.h): one API call per action, errors as values;
// "already done" answers (a kept version that exists, one already deleted, an
// object deleted since it was planned) count as done.
#include "plan_applier.h"

#include "ax/kube/conflict_retry.h"
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

}  // namespace

PlanApplier::PlanApplier(kube::Client& client, kube::EventRecorder& events,
                         std::function<bool()> may_write)
    : client_(client), events_(events), may_write_(std::move(may_write)) {}

bool PlanApplier::MayWrite(ApplyResult& result) {
  if (!may_write_ || may_write_()) return true;
  result.stopped = true;
  return false;
}

ApplyResult PlanApplier::Apply(const Plan& plan, const std::string& ns,
                               WrittenObjects& written) {
  ApplyResult result;
  // Statuses and Events describe the table in force after the plan: when it
  // could not be written, they would describe one that is not.
  result.route_table_written = PublishRouteTable(plan, ns, written, result);
  if (!result.route_table_written) return result;
  WriteStatuses(plan, written, result);
  RecordEvents(plan, result);
  return result;
}

bool PlanApplier::PublishRouteTable(const Plan& plan, const std::string& ns,
                                    WrittenObjects& written,
                                    ApplyResult& result) {
  const kube::Resource config_maps = kube::ConfigMaps().In(ns);
  if (plan.route_table) {
    if (!MayWrite(result)) return false;
    const json& cm = *plan.route_table;
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
    auto created = client_.Create(config_maps, cm);
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
                                ApplyResult& result) {
  for (const StatusUpdate& u : plan.status_updates) {
    if (!MayWrite(result)) return;
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
    const kube::ObjectReference about{e.object.api_version, e.object.kind,
                                      e.object.namespace_name, e.object.name,
                                      e.object.uid};
    auto recorded = events_.Record(about, ToKube(e.type), e.reason, e.message);
    ++result.writes;
    if (!recorded) Fail(result, ReconcileStage::kStatus, recorded.error());
  }
}

}  // namespace ax::controller
