// Applying a Plan through the API, in the order the plan demands: the
// route-table ConfigMap first (create, or replace at the resourceVersion
// read), then kept versions, then statuses (/status, re-read on conflict),
// then Events. Every write first asks whether this replica may still write
// (the leader lease), so losing it stops writing at once. A long run of
// status writes gives way to a newer plan when something changed meanwhile,
// so that an edit is not held up by a thousand statuses; the next pass goes
// on where this one stopped.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <set>
#include <string>

#include "ax/controller/plan.h"
#include "ax/kube/client.h"
#include "ax/kube/event_recorder.h"
#include "operator_metrics.h"
#include "written_objects.h"

namespace ax::controller {

struct ApplyResult {
  // The first stage that failed (publish or status); later writes of a
  // failed publish are skipped, a failed status write does not stop the
  // others.
  std::optional<ReconcileStage> failed;
  kube::Error error;  // of the first failure
  // The route table lost a race (409, or it exists though we saw none):
  // plan again on fresh state.
  bool conflict = false;
  // The route-table step (ConfigMap, kept versions) went through, so the
  // statuses and Events were attempted.
  bool route_table_written = false;
  bool published = false;  // a new route-table ConfigMap was written
  bool stopped = false;    // leadership lost part-way: nothing more written
  // Not empty when the status writes gave way to a newer plan: these objects
  // ("Kind/name") kept their old status, and their Events were not recorded
  // either (the next plan, seeing the same difference, plans both again).
  std::set<std::string> unwritten;
  size_t writes = 0;
};

class PlanApplier {
 public:
  // owner_references: added to every route-table ConfigMap written (current
  // and kept versions; owner_references.h), so that they go with their
  // owner. status_slice: how long statuses are written before a change
  // (`changed` of Apply) makes the rest wait for the next plan.
  PlanApplier(kube::Client& client, kube::EventRecorder& events,
              std::function<bool()> may_write,
              nlohmann::json owner_references = nlohmann::json::array(),
              std::chrono::milliseconds status_slice = kStatusSlice);

  // At 1,000 Nodes with 20 vantages a pass can plan ~1,000 status PUTs of
  // tens of ms each; an edit arriving meanwhile waits at most this long,
  // plus one plan.
  static constexpr std::chrono::milliseconds kStatusSlice{1000};

  // Records what it wrote into `written` (written_objects.h). `changed`
  // (optional): whether the watched world changed since this plan's gather.
  // Statuses go out in this order: those of objects with an Event in the
  // plan first (a health change an operator waits to see), then the rest
  // by Kind/name, starting after the last one written before a pass gave
  // way, so that passes which keep giving way still reach every object.
  ApplyResult Apply(const Plan& plan, const std::string& ns,
                    WrittenObjects& written,
                    const std::function<bool()>& changed = {});

 private:
  bool PublishRouteTable(const Plan& plan, const std::string& ns,
                         WrittenObjects& written, ApplyResult& result);
  // `config_map` with the owner references added.
  nlohmann::json Owned(nlohmann::json config_map) const;
  void WriteStatuses(const Plan& plan, WrittenObjects& written,
                     const std::function<bool()>& changed, ApplyResult& result);
  kube::Result<nlohmann::json> WriteStatus(const StatusUpdate& update);
  void RecordEvents(const Plan& plan, ApplyResult& result);
  bool MayWrite(ApplyResult& result);

  kube::Client& client_;
  kube::EventRecorder& events_;
  const std::function<bool()> may_write_;
  const nlohmann::json owner_references_;
  const std::chrono::milliseconds status_slice_;
  std::string resume_after_;  // Kind/name of the last status written in order
};

}  // namespace ax::controller
