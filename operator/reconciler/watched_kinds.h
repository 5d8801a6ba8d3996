// The gslb.ax.io kinds the operator watches and writes the status of, and
// how each is addressed in the API. One table, so the informers, the status
// writer and the metrics' resource labels cannot disagree.
#pragma once

#include <array>
#include <string_view>

#include "ax/kube/resource.h"

namespace ax::controller {

inline constexpr std::string_view kGslbGroup = "gslb.ax.io";
inline constexpr std::string_view kGslbVersion = "v1alpha1";

struct WatchedKind {
  std::string_view kind;    // "Node"
  std::string_view plural;  // "nodes": the resource label of metrics too
};

// In ObservedState order: domains, regions, nodes, rules, canaries,
// isp_sets, geo_overrides, probe_reports.
inline constexpr std::array<WatchedKind, 8> kWatchedKinds = {{
    {"Domain", "domains"},
    {"Region", "regions"},
    {"Node", "nodes"},
    {"Rule", "rules"},
    {"Canary", "canaries"},
    {"IspSet", "ispsets"},
    {"GeoOverride", "geooverrides"},
    {"ProbeReport", "probereports"},
}};

// The collection of `kind` in `ns` (an unknown kind gets an empty plural,
// which the apiserver refuses).
kube::Resource GslbResource(std::string_view kind, std::string_view ns);

}  // namespace ax::controller
