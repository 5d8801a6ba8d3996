// Standalone's reconcile, the operator's plan run in process: the held
// objects, the standalone vantage's report and the last plan's route table
// make the ObservedState, ComputePlan decides, Commit keeps what it wrote. No
// I/O and no clock: files, probing, the store, logs and metrics are
// standalone.cc's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "ax/controller/plan.h"
#include "ax/manifest_objects.h"
#include "ax/probe_report.h"
#include "ax/route_table_configmap.h"
#include "ax/snapshot.h"
#include "server/standalone_objects.h"

namespace ax::dns {

// The operator's defaults with `history_depth` kept versions, but no limit
// on the route table's size and no gzip: those are the ConfigMap's, and
// nothing here crosses the API.
controller::PlanOptions StandalonePlanOptions(size_t history_depth);

struct StandalonePass {
  controller::Plan plan;
  // The plan's new route table decoded; null when it publishes nothing new.
  std::shared_ptr<const Snapshot> snapshot;
  // Why the new route table did not decode (a bug: the plan wrote it).
  std::optional<RouteTableError> unreadable;
  // Domains GatherWorld kept: with none, nothing worth serving came out.
  size_t valid_domains = 0;
};

// A status a plan rewrote.
struct StatusChange {
  std::string object;     // "Kind/name"
  nlohmann::json before;  // null: it had none
  nlohmann::json after;
};

// The ObservedState between passes: the manifest objects with the statuses
// earlier plans wrote (standalone_objects.h), the vantage's report, and the
// route-table ConfigMap and history the last committed plan wrote. Once the
// caller has served a pass's new route table (decoded here with the
// contract's decoder), Commit makes it, the history and the statuses what
// the next pass reads.
class StandalonePipeline {
 public:
  explicit StandalonePipeline(controller::PlanOptions options);

  // The objects just read from the directory (ReplaceObjects).
  void SetObjects(ManifestObjects read);

  // Plans over the held objects, the Canaries' metric `readings`, `report`
  // (the standalone vantage's), `others` (ProbeReport objects of other
  // vantages, --probe-reports) and the last committed route table, at
  // `now_ms`. Each report keeps the
  // status earlier plans gave the report of its name. Holds the new reports;
  // the rest of what is held changes only in Commit.
  StandalonePass Plan(controller::CanaryReadings readings,
                      const ProbeReport& report,
                      std::vector<nlohmann::json> others, int64_t now_ms);

  // The caller served `plan`'s route table (or it had none): its table,
  // history and statuses become the state the next pass reads.
  std::vector<StatusChange> Commit(const controller::Plan& plan);

  const controller::ObservedState& observed() const { return observed_; }
  const ObjectSources& sources() const { return sources_; }

 private:
  controller::ObservedState observed_;
  ObjectSources sources_;
};

}  // namespace ax::dns
