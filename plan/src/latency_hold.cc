// HoldLatencies (latency_hold.h): compare with the published value, keep it
// while the change stays inside the tolerance.
#include "ax/controller/latency_hold.h"

#include <algorithm>
#include <cmath>
#include <string_view>
#include <unordered_map>

namespace ax::controller {

namespace {
// Below this a change is noise on any network (and under the snapshot's own
// 0.1 ms precision for loopback-fast nodes).
constexpr double kLatencyFloorMs = 1.0;

// The published value while the new one stays inside the tolerance.
double Hold(double now, double before, double tolerance) {
  const double allowed =
      std::max(kLatencyFloorMs, tolerance * std::max(now, before));
  return std::abs(now - before) <= allowed ? before : now;
}
}  // namespace

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

}  // namespace ax::controller
