// PlanIspSetStatuses (statuses.h): what each IspSet resolved to (its ASNs and
// names after merging with a built-in set of its name) and which Regions
// match clients on it. Resolving is core's (isp_sets.h); nothing here
// classifies.
#include <algorithm>

#include "ax/isp_sets.h"
#include "status_common.h"

namespace ax::controller {
namespace {

using nlohmann::json;
using status::Ready;

std::string Plural(size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

json RegionsMatchingOn(const World& world, const std::string& set) {
  json regions = json::array();
  for (const Region& r : world.regions) {
    if (std::find(r.match.isps.begin(), r.match.isps.end(), set) !=
        r.match.isps.end()) {
      regions.push_back(r.meta.name);
    }
  }
  return regions;
}

// The Ready condition of a set that resolved: how (declared, or extending or
// replacing a built-in set) and to what.
Condition Resolved(const IspSet& spec, const SnapshotIspSet& set,
                   bool is_builtin, size_t regions) {
  const char* reason = !is_builtin            ? "Declared"
                       : spec.replace_builtin ? "ReplacesBuiltin"
                                              : "ExtendsBuiltin";
  std::string message = Plural(set.asns.size(), "ASN", "ASNs") + " and " +
                        Plural(set.names.size(), "name", "names");
  if (is_builtin) {
    message += spec.replace_builtin ? ", replacing the built-in set"
                                    : ", the built-in set's included";
  }
  message += regions == 0
                 ? "; no Region matches clients on it"
                 : "; " + Plural(regions, "Region matches", "Regions match") +
                       " clients on it";
  return Ready(ConditionStatus::kTrue, reason, std::move(message));
}

}  // namespace

void PlanIspSetStatuses(const StatusInputs& in, StatusOutput& out) {
  const World& world = in.gathered.world;
  const std::vector<SnapshotIspSet> sets = ResolveIspSets(world.isp_sets);
  const std::vector<std::string> builtin = BuiltinIspSetNames();
  status::ForEachObject(
      in.observed.isp_sets,
      [&](const json& object, const std::string& kind_name) {
        if (auto bad = in.gathered.invalid.find(kind_name);
            bad != in.gathered.invalid.end()) {
          status::PlanInvalid(object, bad->second, "ready", in, out);
          return;
        }
        const std::string name = RefOf(object).name;
        const auto spec =
            std::find_if(world.isp_sets.begin(), world.isp_sets.end(),
                         [&](const IspSet& s) { return s.meta.name == name; });
        const SnapshotIspSet* set = FindIspSet(sets, name);
        if (spec == world.isp_sets.end() || !set) return;
        json regions = RegionsMatchingOn(world, name);
        const Condition ready =
            Resolved(*spec, *set,
                     std::binary_search(builtin.begin(), builtin.end(), name),
                     regions.size());
        json status = {{"ready", true},
                       {"asns", set->asns.size()},
                       {"names", set->names.size()},
                       {"regions", std::move(regions)}};
        status::Emit(object,
                     status::WithConditions(std::move(status), object, {ready},
                                            in.observed.now_ms),
                     out);
      });
}

}  // namespace ax::controller
