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
    const double now = *node.latency_ms, before = it->second;
    const double allowed =
        std::max(kLatencyFloorMs, tolerance * std::max(now, before));
    if (std::abs(now - before) <= allowed) node.latency_ms = before;
  }
  return status;
}

}  // namespace ax::controller
