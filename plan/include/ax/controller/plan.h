// The reconcile as one pure function (cert-manager style: gather, decide, act
// at the edge): an ObservedState in, a Plan out — the route-table ConfigMap to
// write (or none), kept versions to create and delete, status updates, Events,
// metrics and when to plan again. The caller applies it; the steps live in
// gather.h, node_health.h, canary_progress.h, route_table_plan.h and
// statuses.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "ax/controller/actions.h"
#include "ax/controller/observed_state.h"
#include "ax/controller/route_table_plan.h"
#include "ax/model_parse.h"

namespace ax::controller {

// Numbers for metrics and logs.
struct PlanSummary {
  PublishOutcome outcome = PublishOutcome::kUnchanged;
  uint64_t version = 0;  // served after this plan; 0: none
  std::string content_hash;
  // Of the document written, or refused, or served (route_table_plan.h).
  size_t snapshot_bytes = 0;
  size_t payload_bytes = 0;
  bool gzipped = false;
  size_t routes = 0;  // distinct routes in the built snapshot
  // Nodes as the built snapshot has them.
  size_t nodes_up = 0;
  size_t nodes_down = 0;
  size_t nodes_unknown = 0;
  size_t invalid_objects = 0;  // left out (Domain..Canary) + bad ProbeReports
  size_t stale_vantages = 0;
  size_t cut_off_vantages = 0;
  size_t future_reports = 0;  // stamped too far ahead: ignored
  // Regions that list nodes -> how many are Up and Active (as the Region's
  // status.healthyNodes); fallback-only Regions are left out.
  std::map<std::string, size_t> region_healthy_nodes;
  // Vantages with a fresh ProbeReport -> whether the quorum discounts them as
  // cut off.
  std::map<std::string, bool> vantage_cut_off;
  // The built snapshot's vantage groups -> their fresh, trusted vantages (0:
  // the group's regions use the global verdicts).
  std::map<std::string, size_t> group_vantages;
  // (group, node) that group sees Down -> the node's global health.
  std::map<std::pair<std::string, std::string>, Health> group_down;
  // Valid Canaries -> their phase and share as this plan decided them.
  struct CanaryView {
    std::string phase;
    double percent = 0;
  };
  std::map<std::string, CanaryView> canaries;
  // Nodes of the built snapshot whose load is known -> load over capacity in
  // percent (the highest over their declared capacities).
  std::map<std::string, double> node_load_percent;
  // Valid Rules -> what they do and whether they still apply.
  struct RuleView {
    std::string domain;
    std::string action;
    std::string node;
    bool active = false;     // not expired
    int64_t expires_at = 0;  // unix seconds; 0: never
  };
  std::map<std::string, RuleView> rules;
};

struct Plan {
  // The route-table ConfigMap to create (no metadata.resourceVersion) or
  // replace (with the one read, so a concurrent write conflicts).
  std::optional<nlohmann::json> route_table;
  std::vector<nlohmann::json> history_creates;  // immutable kept versions
  std::vector<std::string> history_deletes;     // names, in the namespace
  std::vector<StatusUpdate> status_updates;     // sorted by kind, then name
  std::vector<Event> events;
  PlanSummary summary;
  // Plan again after this long even if nothing is watched changing: the next
  // Rule expiry, canary step or report turning stale. Unset: on change only.
  std::optional<int64_t> requeue_after_ms;
  // The PromQL the caller keeps evaluating for running Canaries' metrics
  // (each at its interval), feeding the readings back in canary_readings.
  std::vector<CanaryQuery> canary_queries;
  // Objects left out and why ("Kind/name" -> errors), for logs.
  std::map<std::string, std::vector<ManifestError>> invalid_objects;
};

Plan ComputePlan(const ObservedState& observed);

}  // namespace ax::controller
