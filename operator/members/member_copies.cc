// MemberConfigMaps, HoldsCopy (member_copies.h).
#include "member_copies.h"

#include "ax/probe_targets.h"
#include "ax/route_table_configmap.h"

namespace ax::controller {
namespace {

using nlohmann::json;

constexpr std::string_view kAxPrefix = "gslb.ax.io/";

json ConfigMap(const std::string& name, json labels, json annotations) {
  return {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata",
           {{"name", name},
            {"labels", std::move(labels)},
            {"annotations", std::move(annotations)}}}};
}

// The route table's own annotations (version, hash, sizes): what ax-dns and
// `kubectl get` read in the member as in the control plane.
json AxAnnotations(const json& meta) {
  json out = json::object();
  const json annotations = meta.value("annotations", json::object());
  for (const auto& [key, value] : annotations.items()) {
    if (key.rfind(kAxPrefix, 0) == 0 && key != kConfirmedAtAnnotation) {
      out[key] = value;
    }
  }
  return out;
}

json RouteTableCopy(const json& source) {
  const json meta = source.value("metadata", json::object());
  json copy =
      ConfigMap(meta.value("name", std::string()),
                meta.value("labels", json::object()), AxAnnotations(meta));
  for (const char* field : {"data", "binaryData"}) {
    if (source.contains(field)) copy[field] = source[field];
  }
  return copy;
}

// Every key of `want` is in `have` with the same value.
bool Contains(const json& have, const json& want) {
  for (const auto& [key, value] : want.items()) {
    const auto it = have.find(key);
    if (it == have.end() || *it != value) return false;
  }
  return true;
}

}  // namespace

std::vector<json> MemberConfigMaps(const json& route_table,
                                   const std::vector<json>& nodes,
                                   std::string_view route_table_name) {
  std::vector<json> out;
  if (route_table.is_object()) out.push_back(RouteTableCopy(route_table));
  out.push_back(MakeProbeTargetsConfigMap(nodes, route_table_name));
  return out;
}

bool HoldsCopy(const json& current, const json& desired) {
  for (const char* field : {"data", "binaryData"}) {
    if (current.value(field, json()) != desired.value(field, json())) {
      return false;
    }
  }
  const json have = current.value("metadata", json::object());
  const json want = desired.value("metadata", json::object());
  for (const char* field : {"labels", "annotations"}) {
    if (!Contains(have.value(field, json::object()),
                  want.value(field, json::object()))) {
      return false;
    }
  }
  return true;
}

}  // namespace ax::controller
