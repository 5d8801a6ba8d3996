// The measurement holds (measurement_hold.h): compare with the published
// value, keep it while the change stays inside the tolerance.
#include "ax/controller/measurement_hold.h"

#include <algorithm>
#include <cmath>
#include <string_view>
#include <unordered_map>

#include "ax/score.h"

namespace ax::controller {

namespace {
// Below this a change is noise on any network (and under the snapshot's own
// 0.1 ms precision for loopback-fast nodes).
constexpr double kLatencyFloorMs = 1.0;
// Utilisation moves under 5 points are noise in any load report.
constexpr double kUtilisationFloor = 0.05;

// The published latency while the new one stays inside the tolerance.
double Hold(double now, double before, double tolerance) {
  return WithinTolerance(now, before, tolerance, kLatencyFloorMs) ? before
                                                                  : now;
}
}  // namespace

bool WithinTolerance(double now, double before, double tolerance,
                     double floor) {
  return std::abs(now - before) <=
         std::max(floor, tolerance * std::max(now, before));
}

StatusMap HoldLatencies(StatusMap status, const Snapshot* previous,
                        double tolerance) {
  if (!previous) return status;
  std::unordered_map<std::string_view, double> published;
  for (const SnapshotNode& n : previous->nodes) {
    if (n.latency_ms >= 0) published[n.name] = n.latency_ms;
  }
  for (auto& [name, node] : status) {
    if (!node.latency_ms) continue;
    const auto it = published.find(name);
    if (it == published.end()) continue;
    node.latency_ms = Hold(*node.latency_ms, it->second, tolerance);
  }
  return status;
}

GroupQuorums HoldGroupLatencies(GroupQuorums groups, const Snapshot* previous,
                                double tolerance) {
  if (!previous) return groups;
  for (const SnapshotVantageGroup& g : previous->vantage_groups) {
    auto group = groups.find(g.name);
    if (group == groups.end()) continue;
    for (const GroupNodeView& v : g.nodes) {
      auto node = group->second.nodes.find(previous->nodes[v.node].name);
      if (v.latency_ms < 0 || node == group->second.nodes.end() ||
          !node->second.latency_ms) {
        continue;
      }
      node->second.latency_ms =
          Hold(*node->second.latency_ms, v.latency_ms, tolerance);
    }
  }
  return groups;
}

StatusMap HoldLoads(StatusMap status, const World& world,
                    const Snapshot* previous, double tolerance) {
  if (!previous) return status;
  std::unordered_map<std::string_view, double> published;
  for (const SnapshotNode& n : previous->nodes) {
    if (n.utilisation >= 0) published[n.name] = n.utilisation;
  }
  for (const Node& node : world.nodes) {
    auto it = status.find(node.meta.name);
    auto before = published.find(node.meta.name);
    if (it == status.end() || before == published.end()) continue;
    const double now = Utilisation(node.capacity, it->second.load);
    if (now < 0) continue;
    const double was = before->second;
    // Past the knee load sets the share a region spills over
    // (build_snapshot.h), which should follow it closely: held only within a
    // quarter of the tolerance there.
    const bool past_knee = now > kLoadKnee;
    if (past_knee != (was > kLoadKnee) ||
        !WithinTolerance(now, was, past_knee ? tolerance / 4 : tolerance,
                         past_knee ? 0 : kUtilisationFloor)) {
      continue;
    }
    // A load whose utilisation is the published one: every declared
    // capacity at that share (Utilisation takes the largest).
    NodeLoad& load = *it->second.load;
    if (node.capacity.bandwidth_mbps > 0) {
      load.bandwidth_mbps = was * node.capacity.bandwidth_mbps;
    }
    if (node.capacity.connections > 0) {
      load.connections = was * node.capacity.connections;
    }
  }
  return status;
}

}  // namespace ax::controller
