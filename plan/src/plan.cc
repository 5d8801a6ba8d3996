// ComputePlan (plan.h): the steps in order — gather and validate, quorum,
// canary progress (its percent goes into this very build), build with the
// previous table, decide what is served, then statuses, Events, summary and
// requeue time.
#include "ax/controller/plan.h"

#include <algorithm>
#include <exception>

#include "ax/build_snapshot.h"
#include "ax/controller/canary_progress.h"
#include "ax/controller/measurement_hold.h"
#include "ax/controller/node_health.h"
#include "ax/controller/statuses.h"
#include "ax/gather.h"

namespace ax::controller {
namespace {

using nlohmann::json;

ObjectRef RouteTableRef(const ObservedState& observed) {
  ObjectRef ref =
      observed.route_table ? RefOf(*observed.route_table) : ObjectRef{};
  ref.api_version = "v1";
  ref.kind = "ConfigMap";
  ref.namespace_name = observed.options.namespace_name;
  ref.name = observed.options.route_table_name;
  return ref;
}

// Whether a Domain already carries this decision's Published reason: then the
// refusal was reported by an earlier plan.
bool AlreadyReported(const ObservedState& observed, const std::string& reason) {
  for (const json& domain : observed.domains) {
    const json status = domain.value("status", json::object());
    const json conditions =
        status.is_object() ? status.value("conditions", json()) : json();
    if (!conditions.is_array()) continue;
    for (const json& c : conditions) {
      if (c.is_object() && c.value("type", json()) == "Published" &&
          c.value("reason", json()) == reason) {
        return true;
      }
    }
  }
  return false;
}

void RouteTableEvents(const ObservedState& observed,
                      const PreviousRouteTable& previous,
                      const RouteTableDecision& d, std::vector<Event>& events) {
  const ObjectRef ref = RouteTableRef(observed);
  if (previous.error) {
    events.push_back({ref, EventType::kWarning, "RouteTableUnreadable",
                      previous.error->ToString()});
  }
  switch (d.outcome) {
    case PublishOutcome::kPublished:
      events.push_back({ref, EventType::kNormal, d.reason, d.message});
      break;
    case PublishOutcome::kRejected:
      if (!AlreadyReported(observed, d.reason)) {
        events.push_back({ref, EventType::kWarning, "SnapshotRejected",
                          d.reason + ": " + d.message +
                              (d.detail.empty() ? "" : " (" + d.detail + ")")});
      }
      break;
    case PublishOutcome::kRolledBack:
      if (d.config_map) {
        events.push_back({ref, EventType::kNormal, d.reason, d.message});
      }
      break;
    case PublishOutcome::kHeld:
      if (!AlreadyReported(observed, d.reason)) {
        events.push_back({ref, EventType::kWarning, d.reason, d.message});
      }
      break;
    case PublishOutcome::kUnchanged:
      break;
  }
}

std::optional<int64_t> NextChange(
    const ObservedState& observed, const World& world, const NodeHealth& health,
    const std::map<std::string, CanaryDecision>& canaries) {
  std::optional<int64_t> next = health.next_change_ms;
  auto consider = [&next](int64_t at) {
    next = std::min(next.value_or(at), at);
  };
  for (const Rule& rule : world.rules) {
    if (rule.expires_at && !rule.ExpiredAt(observed.now_ms)) {
      consider(*rule.expires_at * 1000);
    }
  }
  for (const Node& node : world.nodes) {
    if (node.admin_state_expires_at &&
        !ExpiredAt(node.admin_state_expires_at, observed.now_ms)) {
      consider(*node.admin_state_expires_at * 1000);
    }
  }
  for (const GeoOverride& o : world.geo_overrides) {
    if (o.AppliesAt(observed.now_ms) && o.expires_at) {
      consider(*o.expires_at * 1000);
    }
  }
  for (const auto& [name, d] : canaries) {
    if (d.next_step_at_ms) consider(*d.next_step_at_ms);
  }
  if (!next) return std::nullopt;
  return std::max<int64_t>(0, *next - observed.now_ms);
}

PlanSummary Summarise(const RouteTableDecision& d, const Snapshot* built,
                      const GatheredWorld& gathered, const NodeHealth& health,
                      const std::map<std::string, CanaryDecision>& canaries,
                      int64_t now_ms) {
  PlanSummary s;
  for (const auto& [name, c] : canaries) {
    s.canaries[name] = {CanaryPhaseName(c.state.phase), c.state.percent};
  }
  for (const Rule& r : gathered.world.rules) {
    s.rules[r.meta.name] = {r.domain, RuleActionName(r.action), r.node,
                            !r.ExpiredAt(now_ms), r.expires_at.value_or(0)};
  }
  s.outcome = d.outcome;
  if (d.in_force) {
    s.version = d.in_force->version;
    s.content_hash = d.in_force->content_hash;
  }
  s.snapshot_bytes = d.snapshot_bytes;
  s.payload_bytes = d.payload_bytes;
  s.gzipped = d.gzipped;
  if (built) {
    s.routes = built->routes.size();
    for (const SnapshotNode& n : built->nodes) {
      if (n.utilisation >= 0) s.node_load_percent[n.name] = n.utilisation * 100;
      switch (n.health) {
        case Health::kUp:
          ++s.nodes_up;
          break;
        case Health::kDown:
          ++s.nodes_down;
          break;
        case Health::kUnknown:
          ++s.nodes_unknown;
          break;
      }
    }
  }
  s.invalid_objects = gathered.invalid.size();
  for (const ReportView& r : health.reports) {
    s.invalid_objects += r.use == ReportUse::kInvalid;
  }
  s.stale_vantages = health.quorum.stale_vantages.size();
  s.cut_off_vantages = health.quorum.cut_off_vantages.size();
  for (const ReportView& r : health.reports) {
    s.future_reports += r.use == ReportUse::kFuture;
  }
  for (const ReportView& r : health.reports) {
    if (r.use == ReportUse::kCounted || r.use == ReportUse::kDiscounted) {
      s.vantage_cut_off[r.vantage] = r.use == ReportUse::kDiscounted;
    }
  }
  if (built) {
    for (const SnapshotVantageGroup& g : built->vantage_groups) {
      s.group_vantages[g.name] = g.vantages;
    }
    s.group_down = NodesDownByGroup(*built);
    const SnapshotIndex index(*built);
    for (const Region& region : gathered.world.regions) {
      if (region.nodes.empty()) continue;
      s.region_healthy_nodes[region.meta.name] =
          HealthyNodeCount(region, index);
    }
  }
  return s;
}

}  // namespace

Plan ComputePlan(const ObservedState& observed) {
  const PlanOptions& options = observed.options;
  GatheredWorld gathered = GatherWorld(observed);
  const NodeHealth health =
      DecideNodeHealth(observed.probe_reports, gathered.world.regions,
                       observed.now_ms, options.quorum);
  const StatusMap status = health.quorum.ToStatusMap();
  const std::map<std::string, CanaryDecision> canaries =
      ProgressCanaries(observed, gathered.world, status, health);

  const PreviousRouteTable previous = ReadPreviousRouteTable(observed);
  std::optional<Snapshot> built;
  std::string build_error;
  try {
    const Snapshot* in_force =
        previous.snapshot ? &*previous.snapshot : nullptr;
    built = BuildSnapshot(
        gathered.world,
        HoldLoads(
            HoldLatencies(status, in_force, options.measurement_tolerance),
            gathered.world, in_force, options.measurement_tolerance),
        in_force,
        BuildOptions{.now_ms = observed.now_ms,
                     .version = previous.highest_version + 1,
                     .failover_window_ms = options.failover_window_ms},
        HoldGroupLatencies(health.groups, in_force,
                           options.measurement_tolerance));
  } catch (const std::exception& e) {
    // The World passed validation, so this is a bug; refuse rather than crash.
    build_error = e.what();
  }
  const Snapshot* built_ptr = built ? &*built : nullptr;
  const RouteTableDecision decision =
      DecideRouteTable(built_ptr, build_error, previous, observed);

  Plan plan;
  plan.route_table = decision.config_map;
  plan.history_creates = decision.history_creates;
  plan.history_deletes = decision.history_deletes;
  for (const auto& [name, c] : canaries) {
    plan.canary_queries.insert(plan.canary_queries.end(), c.queries.begin(),
                               c.queries.end());
  }
  RouteTableEvents(observed, previous, decision, plan.events);

  const StatusInputs in{observed,  gathered, health,
                        built_ptr, decision, canaries};
  StatusOutput out;
  PlanDomainStatuses(in, out);
  PlanRegionStatuses(in, out);
  PlanNodeStatuses(in, out);
  PlanRuleStatuses(in, out);
  PlanCanaryStatuses(in, out);
  PlanIspSetStatuses(in, out);
  PlanGeoOverrideStatuses(in, out);
  PlanProbeReportStatuses(in, out);
  std::stable_sort(out.updates.begin(), out.updates.end(),
                   [](const StatusUpdate& a, const StatusUpdate& b) {
                     return std::tie(a.object.kind, a.object.name) <
                            std::tie(b.object.kind, b.object.name);
                   });
  plan.status_updates = std::move(out.updates);
  plan.events.insert(plan.events.end(), out.events.begin(), out.events.end());

  plan.summary = Summarise(decision, built_ptr, gathered, health, canaries,
                           observed.now_ms);
  plan.requeue_after_ms =
      NextChange(observed, gathered.world, health, canaries);
  if (out.wake_ms) {
    const int64_t after = std::max<int64_t>(0, *out.wake_ms - observed.now_ms);
    plan.requeue_after_ms =
        std::min(plan.requeue_after_ms.value_or(after), after);
  }
  plan.invalid_objects = std::move(gathered.invalid);
  return plan;
}

}  // namespace ax::controller
