// GatherWorld (gather.h): parse each object, then validate and leave out the
// offenders until the World is clean. Each round removes at least one object,
// so it ends; in practice one or two rounds.
#include "ax/gather.h"

#include <algorithm>

#include "ax/validate.h"

namespace ax {
namespace {

// Removes the objects of `list` whose "Kind/name" is in `invalid`.
template <typename T>
void LeaveOut(
    std::vector<T>& list, const char* kind,
    const std::map<std::string, std::vector<ManifestError>>& invalid) {
  std::erase_if(list, [&](const T& obj) {
    return invalid.contains(std::string(kind) + "/" + obj.meta.name);
  });
}

void LeaveOutInvalid(GatheredWorld& g) {
  LeaveOut(g.world.domains, "Domain", g.invalid);
  LeaveOut(g.world.regions, "Region", g.invalid);
  LeaveOut(g.world.nodes, "Node", g.invalid);
  LeaveOut(g.world.rules, "Rule", g.invalid);
  LeaveOut(g.world.canaries, "Canary", g.invalid);
  LeaveOut(g.world.isp_sets, "IspSet", g.invalid);
  LeaveOut(g.world.geo_overrides, "GeoOverride", g.invalid);
}

size_t ObjectCount(const World& w) {
  return w.domains.size() + w.regions.size() + w.nodes.size() + w.rules.size() +
         w.canaries.size() + w.isp_sets.size() + w.geo_overrides.size();
}

// Validate says `Node "gz-01" is not defined` for a reference to an object it
// no longer sees; when that object exists but was left out, say so.
void ExplainMissingReference(const GatheredWorld& g, ManifestError& e) {
  constexpr std::string_view kSuffix = "\" is not defined";
  const std::string& m = e.message;
  const size_t quote = m.find(" \"");
  if (!m.ends_with(kSuffix) || quote == std::string::npos) return;
  const std::string kind = m.substr(0, quote);
  const std::string name =
      m.substr(quote + 2, m.size() - kSuffix.size() - quote - 2);
  if (g.IsInvalid(kind + "/" + name)) {
    e.message += " (it exists but is invalid, so it is left out)";
  }
}

}  // namespace

GatheredWorld GatherWorld(const ApiObjects& objects) {
  GatheredWorld g;
  for (const auto* list :
       {&objects.domains, &objects.regions, &objects.nodes, &objects.rules,
        &objects.canaries, &objects.isp_sets, &objects.geo_overrides}) {
    for (const nlohmann::json& object : *list) {
      std::vector<ManifestError> errors;
      if (!ParseManifestObject(object, "", g.world, errors)) {
        for (ManifestError& e : errors) {
          g.invalid[e.object].push_back(std::move(e));
        }
      }
    }
  }
  for (;;) {
    std::vector<ManifestError> errors = Validate(g.world);
    if (errors.empty()) break;
    for (ManifestError& e : errors) {
      ExplainMissingReference(g, e);
      g.invalid[e.object].push_back(std::move(e));
    }
    const size_t before = ObjectCount(g.world);
    LeaveOutInvalid(g);
    // Every error names a present object, so something left; if not, stop
    // rather than loop (the errors are reported either way).
    if (ObjectCount(g.world) == before) break;
  }
  return g;
}

}  // namespace ax
