// ResolveIspSets, FindIspSet, MatchIsp (isp_sets.h): the built-in table merged
// with declared IspSets, and lookups over the result. The table itself is
// generated data (isp_sets_data.cc).
#include "ax/isp_sets.h"

#include <algorithm>
#include <map>
#include <set>

#include "isp_sets_data.h"

namespace ax {
namespace {

struct Entries {
  std::set<uint32_t> asns;
  std::set<std::string> names;
};

template <typename T>
bool Contains(const std::vector<T>& sorted, const T& value) {
  return std::binary_search(sorted.begin(), sorted.end(), value);
}

}  // namespace

std::vector<std::string> BuiltinIspSetNames() {
  std::vector<std::string> names;
  for (const BuiltinIspSet& b : BuiltinIspSets()) names.emplace_back(b.name);
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<SnapshotIspSet> ResolveIspSets(
    const std::vector<IspSet>& declared) {
  std::map<std::string, Entries, std::less<>> sets;
  for (const BuiltinIspSet& b : BuiltinIspSets()) {
    Entries& e = sets[std::string(b.name)];
    e.asns.insert(b.asns.begin(), b.asns.end());
    e.names.insert(b.names.begin(), b.names.end());
  }
  std::set<std::string_view> seen;
  for (const IspSet& d : declared) {
    if (!seen.insert(d.meta.name).second) continue;
    Entries& e = sets[d.meta.name];
    if (d.replace_builtin) e = {};
    e.asns.insert(d.asns.begin(), d.asns.end());
    e.names.insert(d.names.begin(), d.names.end());
  }
  std::vector<SnapshotIspSet> out;
  out.reserve(sets.size());
  for (auto& [name, e] : sets) {
    e.asns.erase(0);  // "unknown" to the databases: matches nothing
    out.push_back({name,
                   {e.asns.begin(), e.asns.end()},
                   {e.names.begin(), e.names.end()}});
  }
  return out;
}

const SnapshotIspSet* FindIspSet(const std::vector<SnapshotIspSet>& sets,
                                 std::string_view name) {
  const auto it = std::lower_bound(
      sets.begin(), sets.end(), name,
      [](const SnapshotIspSet& s, std::string_view n) { return s.name < n; });
  return it != sets.end() && it->name == name ? &*it : nullptr;
}

std::optional<IspMatch> MatchIsp(const RegionMatch& match,
                                 const std::vector<SnapshotIspSet>& sets,
                                 const GeoInfo& geo) {
  if (geo.asn != 0 && std::find(match.asns.begin(), match.asns.end(),
                                geo.asn) != match.asns.end()) {
    return IspMatch{};
  }
  // The longest set name the database's name begins with (isp_sets.h).
  std::string_view by_name;
  for (const SnapshotIspSet& set : sets) {
    for (const std::string& n : set.names) {
      if (n.size() > by_name.size() && geo.isp.starts_with(n)) by_name = n;
    }
  }
  for (const std::string& name : match.isps) {
    const SnapshotIspSet* set = FindIspSet(sets, name);
    if (!set) continue;
    if (geo.asn != 0 && Contains(set->asns, geo.asn)) return IspMatch{set};
    if (!by_name.empty() && Contains(set->names, std::string(by_name))) {
      return IspMatch{set, true};
    }
  }
  return std::nullopt;
}

}  // namespace ax
