// The gslb.ax.io kinds the operator watches and writes the status of, and
// how each is addressed in the API. One table, so the informers, the status
// writer and the metrics' resource labels cannot disagree.
#pragma once

#include <array>
#include <string_view>

#include "ax/api_kinds.h"
#include "ax/kube/resource.h"

namespace ax::controller {

using WatchedKind = ApiKind;

// In ObservedState order: domains, regions, nodes, rules, canaries,
// isp_sets, geo_overrides, probe_reports. MeasurementReports are the geo
// suggestions' input (axctl geo suggest --cluster), not the plan's.
inline constexpr std::array<WatchedKind, 8> kWatchedKinds = [] {
  std::array<WatchedKind, 8> out{};
  for (size_t i = 0; i < out.size(); ++i) out[i] = kApiKinds[i];
  return out;
}();
static_assert(kWatchedKinds.back().kind == "ProbeReport");

// The collection of `kind` in `ns` (an unknown kind gets an empty plural,
// which the apiserver refuses).
kube::Resource GslbResource(std::string_view kind, std::string_view ns);

}  // namespace ax::controller
