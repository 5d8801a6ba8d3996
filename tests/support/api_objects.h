// Test support: gslb.ax.io objects as the Kubernetes API returns them
// (apiVersion, kind, metadata with generation and resourceVersion, spec),
// built in code. Plain JSON: the loader's, the plan's and the operator's tests
// share them.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ax/model.h"

namespace ax::testing {

using nlohmann::json;

inline json Object(const std::string& kind, const std::string& name,
                   json spec) {
  return {{"apiVersion", kApiVersion},
          {"kind", kind},
          {"metadata",
           {{"name", name},
            {"namespace", "gslb"},
            {"uid", kind + "-" + name},
            {"generation", 1},
            {"resourceVersion", "1"}}},
          {"spec", std::move(spec)}};
}

inline json NodeObject(const std::string& name, const std::string& address,
                       json extra = json::object()) {
  json spec = {{"addresses", {address}},
               {"area", "area"},
               {"isp", "any"},
               {"capacity", {{"bandwidthMbps", 1000}, {"connections", 10000}}},
               {"healthCheck", {{"protocol", "TCP"}, {"port", 80}}}};
  spec.update(extra);
  return Object("Node", name, std::move(spec));
}

inline json RegionObject(const std::string& name,
                         std::vector<std::string> nodes,
                         std::vector<std::string> fallback = {}) {
  json spec = {{"area", name},
               {"isp", "any"},
               {"match", {{"countries", {"US"}}}},
               {"nodes", nodes}};
  if (!fallback.empty()) spec["fallbackRegions"] = fallback;
  return Object("Region", name, std::move(spec));
}

inline json DomainObject(const std::string& name, json extra = json::object()) {
  json spec = {{"fqdn", name + ".example.test"}, {"zone", "example.test"}};
  spec.update(extra);
  return Object("Domain", name, std::move(spec));
}

// `at` is RFC 3339; empty: no expiry.
inline json RuleObject(const std::string& name, const std::string& domain,
                       const std::string& action, const std::string& node,
                       const std::string& expires_at = "") {
  json spec = {{"domain", domain}, {"action", action}, {"node", node}};
  if (!expires_at.empty()) spec["expiresAt"] = expires_at;
  return Object("Rule", name, std::move(spec));
}

}  // namespace ax::testing
