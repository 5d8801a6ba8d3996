// What every member cluster holds, computed once per reconcile pass from the
// control plane's own objects: a copy of the route-table ConfigMap as
// published (data, version, hash, labels; ax-dns reads it by name) and the
// probe-targets ConfigMap, the Nodes (name and spec) for the member's probe
// agents, which have no Node objects of their own. Pure; writing them is
// member_link.h's.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace ax::controller {

// The ConfigMaps (no namespace, no resourceVersion) a member should hold:
// the route-table copy when `route_table` (the control plane's current
// ConfigMap) is an object, and the probe targets from `nodes` (Node objects
// as read; sorted by name so that the same Nodes give the same bytes).
std::vector<nlohmann::json> MemberConfigMaps(
    const nlohmann::json& route_table, const std::vector<nlohmann::json>& nodes,
    std::string_view route_table_name);

// Whether `current` (a member's ConfigMap as read) already holds `desired`'s
// data, labels and annotations (ignoring kConfirmedAtAnnotation and anything
// else the member added).
bool HoldsCopy(const nlohmann::json& current, const nlohmann::json& desired);

}  // namespace ax::controller
