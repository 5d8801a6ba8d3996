// Plan step 1: the observed gslb.ax.io objects -> the World a snapshot is
// built from. Every object goes through the core parser (model_parse.h) and
// the cross-object checks (validate.h); an object that fails either is left
// out and reported, and the rest is planned. Status and snapshot decisions
// come later (plan.h); nothing here reads status beyond what the parser does.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ax/controller/observed_state.h"
#include "ax/model.h"
#include "ax/model_parse.h"

namespace ax::controller {

struct GatheredWorld {
  World world;  // the objects that parsed and validated
  // Left out: "Kind/name" -> every reason, in the order found.
  std::map<std::string, std::vector<ManifestError>> invalid;

  bool IsInvalid(const std::string& kind_name) const {
    return invalid.contains(kind_name);
  }
};

// Parses every Domain, Region, Node, Rule and Canary, then validates. Leaving
// an object out can break others (a Region listing a Node that is left out),
// so validation repeats until what remains is clean; such follow-on errors say
// that the object they reference is invalid.
GatheredWorld GatherWorld(const ObservedState& observed);

}  // namespace ax::controller
