// The probe-targets ConfigMap (probe_targets.h): written sorted, read
// strictly (a List of objects), every error naming the key.
#include "ax/probe_targets.h"

#include <algorithm>

#include "ax/api_kinds.h"

namespace ax {

using nlohmann::json;

std::string ProbeTargetsConfigMapName(std::string_view route_table) {
  return std::string(route_table) + "-nodes";
}

json MakeProbeTargetsConfigMap(const std::vector<json>& nodes,
                               std::string_view route_table) {
  json items = json::array();
  for (const json& node : nodes) {
    const json meta = node.value("metadata", json::object());
    items.push_back({{"apiVersion", kApiVersion},
                     {"kind", "Node"},
                     {"metadata", {{"name", meta.value("name", "")}}},
                     {"spec", node.value("spec", json::object())}});
  }
  std::sort(items.begin(), items.end(), [](const json& a, const json& b) {
    return a["metadata"]["name"] < b["metadata"]["name"];
  });
  const json list = {{"apiVersion", "v1"}, {"kind", "List"}, {"items", items}};
  return {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata",
           {{"name", ProbeTargetsConfigMapName(route_table)},
            {"labels",
             {{"app.kubernetes.io/part-of", "ax"},
              {kProbeTargetsLabel, std::string(route_table)}}}}},
          {"data", {{kProbeTargetsKey, list.dump()}}}};
}

ProbeTargets ReadProbeTargets(const json& config_map) {
  ProbeTargets out;
  const std::string where = std::string("data.") + kProbeTargetsKey;
  const json data = config_map.value("data", json::object());
  const auto text = data.find(kProbeTargetsKey);
  if (text == data.end() || !text->is_string()) {
    out.error = where + ": missing";
    return out;
  }
  const json list = json::parse(text->get<std::string>(), nullptr, false);
  if (list.is_discarded() || !list.is_object() ||
      !list.value("items", json()).is_array()) {
    out.error = where + ": not a List document with items";
    return out;
  }
  for (const json& item : list["items"]) {
    if (!item.is_object()) {
      out.error = where + ": an item is not an object";
      out.nodes.clear();
      return out;
    }
    json node = item;
    node["apiVersion"] = kApiVersion;
    node["kind"] = "Node";
    out.nodes.push_back(std::move(node));
  }
  return out;
}

}  // namespace ax
