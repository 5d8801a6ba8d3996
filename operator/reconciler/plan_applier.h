// Applying a Plan through the API, in the order the plan demands: the
// route-table ConfigMap first (create, or replace at the resourceVersion
// read), then kept versions, then statuses (/status, re-read on conflict),
// then Events. Every write first asks whether this replica may still write
// (the leader lease), so losing it stops writing at once.
#pragma once

#include <functional>
#include <optional>
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
  size_t writes = 0;
};

class PlanApplier {
 public:
  PlanApplier(kube::Client& client, kube::EventRecorder& events,
              std::function<bool()> may_write);

  // Records what it wrote into `written` (written_objects.h).
  ApplyResult Apply(const Plan& plan, const std::string& ns,
                    WrittenObjects& written);

 private:
  bool PublishRouteTable(const Plan& plan, const std::string& ns,
                         WrittenObjects& written, ApplyResult& result);
  void WriteStatuses(const Plan& plan, WrittenObjects& written,
                     ApplyResult& result);
  kube::Result<nlohmann::json> WriteStatus(const StatusUpdate& update);
  void RecordEvents(const Plan& plan, ApplyResult& result);
  bool MayWrite(ApplyResult& result);

  kube::Client& client_;
  kube::EventRecorder& events_;
  const std::function<bool()> may_write_;
};

}  // namespace ax::controller
