// Plan step 5: the status each gslb.ax.io object should have after this plan,
// and the Events its changes call for. One planner per kind; each emits a
// StatusUpdate only for objects whose status changes. The inputs are the
// earlier steps' results; nothing here decides health or what is published.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ax/controller/actions.h"
#include "ax/controller/canary_progress.h"
#include "ax/controller/node_health.h"
#include "ax/controller/observed_state.h"
#include "ax/controller/route_table_plan.h"
#include "ax/gather.h"
#include "ax/score.h"
#include "ax/snapshot.h"

namespace ax::controller {

struct StatusInputs {
  const ObservedState& observed;
  const GatheredWorld& gathered;
  const NodeHealth& health;
  // This plan's snapshot: what the operator believes now (node health, load).
  // Null when building failed.
  const Snapshot* built;
  const RouteTableDecision& route_table;  // its in_force: what ax-dns serves
  const std::map<std::string, CanaryDecision>& canaries;  // by Canary name
};

struct StatusOutput {
  std::vector<StatusUpdate> updates;
  std::vector<Event> events;
  // The earliest moment a status changes with time alone (a drained node's
  // caches expiring), unix ms: the plan wakes then.
  std::optional<int64_t> wake_ms;
};

// A built snapshot's nodes and regions by name, to judge a Region as its
// clients are answered: with its vantage group's view of each node.
class SnapshotIndex {
 public:
  explicit SnapshotIndex(const Snapshot& snapshot);
  // The group region `region` is measured by, or null (the global verdicts).
  const SnapshotVantageGroup* GroupOf(std::string_view region) const;
  // Node `node` as region `region`'s clients are answered with it; nullopt
  // when the snapshot has no such node.
  std::optional<NodeFacts> FactsFor(std::string_view region,
                                    std::string_view node) const;

 private:
  const Snapshot& snapshot_;
  std::unordered_map<std::string_view, uint32_t> nodes_;
  std::unordered_map<std::string_view, const SnapshotVantageGroup*> groups_;
};
// The Region's nodes that are Up (as its clients' vantage group sees them)
// and Active: status.healthyNodes, and the ax_operator_region_healthy_nodes
// metric.
size_t HealthyNodeCount(const Region& region, const SnapshotIndex& index);

// health, healthChangedAt, latencyMs, load, loadPercent, vantages,
// leftAnswersAt; Ready, Drained. Events NodeDown / NodeUp / NodeDrained.
void PlanNodeStatuses(const StatusInputs& in, StatusOutput& out);
// ready (a healthy candidate somewhere, or a fallback, in the table in
// force); Ready and Published.
void PlanDomainStatuses(const StatusInputs& in, StatusOutput& out);
// ready, healthyNodes; Ready.
void PlanRegionStatuses(const StatusInputs& in, StatusOutput& out);
// active, expired; Ready. Event RuleExpired.
void PlanRuleStatuses(const StatusInputs& in, StatusOutput& out);
// phase, percent, step, stepStartedAt; Ready. Events on phase changes.
void PlanCanaryStatuses(const StatusInputs& in, StatusOutput& out);
// ready, asns, names, regions; Ready (Declared, ExtendsBuiltin,
// ReplacesBuiltin).
void PlanIspSetStatuses(const StatusInputs& in, StatusOutput& out);
// phase (Proposed, Pending, Active, Expired), active, region; Ready. Event
// GeoOverrideExpired.
void PlanGeoOverrideStatuses(const StatusInputs& in, StatusOutput& out);
// stale; Ready (Counted, Stale, CutOff, Superseded).
void PlanProbeReportStatuses(const StatusInputs& in, StatusOutput& out);

}  // namespace ax::controller
