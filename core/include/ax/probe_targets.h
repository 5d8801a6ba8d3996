// The probe-targets ConfigMap: the Nodes (name and spec) a member cluster's
// probe agents probe, which have no Node objects there. The operator writes
// it into each member (operator/members/), ax-probe reads it
// (--nodes-configmap); both sides use these functions, so the format lives
// here once. Pure.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace ax {

// The ConfigMap's label (value: the route table's name) and the key holding
// the Nodes: a `kind: List` document (JSON, which is YAML).
inline constexpr char kProbeTargetsLabel[] = "gslb.ax.io/probe-targets";
inline constexpr char kProbeTargetsKey[] = "nodes.yaml";

// "<route_table>-nodes".
std::string ProbeTargetsConfigMapName(std::string_view route_table);

// The ConfigMap (no namespace) listing `nodes` (Node objects as read) by
// name, so that the same Nodes give the same bytes.
nlohmann::json MakeProbeTargetsConfigMap(
    const std::vector<nlohmann::json>& nodes, std::string_view route_table);

struct ProbeTargets {
  std::vector<nlohmann::json> nodes;  // Node objects: apiVersion, kind set
  std::string error;  // not empty: the ConfigMap's problem, by key
};

// The Nodes of a probe-targets ConfigMap as read.
ProbeTargets ReadProbeTargets(const nlohmann::json& config_map);

}  // namespace ax
