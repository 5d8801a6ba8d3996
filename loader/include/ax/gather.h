// The gslb.ax.io objects as the Kubernetes API (or a manifest directory)
// gives them -> the World a snapshot is built from: step 1 of the plan, and
// how ax-probe and standalone ax-dns read objects. Every object goes through
// the core parser (model_parse.h) and the cross-object checks (validate.h);
// an object that fails either is left out and reported, and the rest is
// used. Status and snapshot decisions are the plan's; nothing here reads
// status beyond what the parser does.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ax/model.h"
#include "ax/model_parse.h"

namespace ax {

// Objects of each kind as the API lists them (apiVersion, kind, metadata,
// spec, status).
struct ApiObjects {
  std::vector<nlohmann::json> domains;
  std::vector<nlohmann::json> regions;
  std::vector<nlohmann::json> nodes;
  std::vector<nlohmann::json> rules;
  std::vector<nlohmann::json> canaries;
  std::vector<nlohmann::json> isp_sets;
  std::vector<nlohmann::json> geo_overrides;
};

struct GatheredWorld {
  World world;  // the objects that parsed and validated
  // Left out: "Kind/name" -> every reason, in the order found.
  std::map<std::string, std::vector<ManifestError>> invalid;

  bool IsInvalid(const std::string& kind_name) const {
    return invalid.contains(kind_name);
  }
};

// Parses every object of the kinds above, then validates.
// Leaving an object out can break others (a Region listing a Node that is left
// out), so validation repeats until what remains is clean; such follow-on
// errors say that the object they reference is invalid.
GatheredWorld GatherWorld(const ApiObjects& objects);

}  // namespace ax
