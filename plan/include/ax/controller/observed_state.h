// The reconcile's input: everything the operator read from the Kubernetes API
// for one pass (gslb.ax.io objects as the API returns them, the route-table
// ConfigMap and its history), the wall clock and the options. Plain data; the
// caller gathers it, ComputePlan (plan.h) reads it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "ax/controller/canary_metrics.h"
#include "ax/gather.h"
#include "ax/quorum.h"
#include "ax/route_table_configmap.h"

namespace ax::controller {

struct PlanOptions {
  std::string namespace_name = "ax-system";         // where the ConfigMaps live
  std::string route_table_name = "ax-route-table";  // the ConfigMap's name
  size_t history_depth = 5;  // published versions kept as <name>-v<version>
  QuorumPolicy quorum;
  // A snapshot whose stored form (text, or gzip when over the threshold)
  // exceeds this is refused.
  size_t max_config_map_bytes = kConfigMapMaxBytes;
  size_t gzip_threshold_bytes = kDefaultGzipThresholdBytes;
  // Passed to BuildSnapshot (build_snapshot.h).
  int64_t failover_window_ms = 300'000;
  // Node status measurements (latency, load) move with every probe; a status
  // write for them alone waits until one moved by more than this share (or
  // 1 ms / 5 load points), so steady probing does not rewrite every Node.
  // The snapshot holds its latencies the same way (measurement_hold.h), so
  // steady probing does not publish a version per report either.
  double measurement_tolerance = 0.2;
};

// On a ProbeReport read from a member cluster (its value: the member's name):
// its votes count like any other vantage's, but its status lives in the
// member, so the plan writes none.
inline constexpr char kMemberAnnotation[] = "gslb.ax.io/member";

// The gslb.ax.io objects (ApiObjects: with generation and resourceVersion)
// plus what only the plan reads.
struct ObservedState : ApiObjects {
  // This namespace's reports, then the member clusters' (kMemberAnnotation).
  std::vector<nlohmann::json> probe_reports;
  // The route-table ConfigMap ax-dns reads; absent before the first publish.
  std::optional<nlohmann::json> route_table;
  // The kept versions: ConfigMaps listed with RouteTableHistorySelector()
  // (route_table_configmap.h), with their data. Others are ignored.
  std::vector<nlohmann::json> history;
  // The latest Prometheus readings of the Canaries' metrics (the operator
  // evaluates the Plan's canary_queries); empty where nobody reads them.
  CanaryReadings canary_readings;
  int64_t now_ms = 0;  // wall clock, unix milliseconds
  PlanOptions options;
};

}  // namespace ax::controller
