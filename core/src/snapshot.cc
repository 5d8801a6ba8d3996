// Route source names and route equality (the builder deduplicates routes with
// it). Serialisation lives in snapshot_json.cc, invariants in
// snapshot_validate.cc, building in build_snapshot.cc.
#include "ax/snapshot.h"

#include <algorithm>
#include <tuple>

#include "ax/enum_names.h"

namespace ax {
namespace {

constexpr NameTable<RouteSource, 8> kRouteSources{{
    {RouteSource::kRegion, "Region"},
    {RouteSource::kAnycast, "Anycast"},
    {RouteSource::kFallbackRegion, "FallbackRegion"},
    {RouteSource::kIspHealthy, "IspHealthy"},
    {RouteSource::kAllHealthy, "AllHealthy"},
    {RouteSource::kAnycastFallback, "AnycastFallback"},
    {RouteSource::kDomainFallback, "DomainFallback"},
    {RouteSource::kFailOpen, "FailOpen"},
}};

bool SameCandidate(const Candidate& a, const Candidate& b) {
  return std::tie(a.node, a.weight, a.score.health, a.score.load,
                  a.score.latency, a.score.priority, a.ramp_start_ms) ==
         std::tie(b.node, b.weight, b.score.health, b.score.load,
                  b.score.latency, b.score.priority, b.ramp_start_ms);
}

}  // namespace

const SnapshotVantageGroup* GroupOf(const Snapshot& s,
                                    const SnapshotRegion& r) {
  return r.vantage_group < s.vantage_groups.size()
             ? &s.vantage_groups[r.vantage_group]
             : nullptr;
}

const GroupNodeView* SeenByGroup(const SnapshotVantageGroup* group,
                                 uint32_t node) {
  if (!group || group->vantages == 0) return nullptr;
  auto it = std::lower_bound(
      group->nodes.begin(), group->nodes.end(), node,
      [](const GroupNodeView& v, uint32_t n) { return v.node < n; });
  if (it == group->nodes.end() || it->node != node ||
      it->health == Health::kUnknown) {
    return nullptr;
  }
  return &*it;
}

const char* RouteSourceName(RouteSource s) { return NameOf(kRouteSources, s); }

std::optional<RouteSource> ParseRouteSource(std::string_view name) {
  return ValueOf(kRouteSources, name);
}

bool Route::operator==(const Route& o) const {
  return std::tie(source, via, rules, canary, hysteresis_held,
                  failover_until_ms, spill_share, spill_route) ==
             std::tie(o.source, o.via, o.rules, o.canary, o.hysteresis_held,
                      o.failover_until_ms, o.spill_share, o.spill_route) &&
         std::equal(candidates.begin(), candidates.end(), o.candidates.begin(),
                    o.candidates.end(), SameCandidate);
}

std::map<std::pair<std::string, std::string>, Health> NodesDownByGroup(
    const Snapshot& s) {
  std::map<std::pair<std::string, std::string>, Health> out;
  for (const SnapshotVantageGroup& g : s.vantage_groups) {
    for (const GroupNodeView& v : g.nodes) {
      const GroupNodeView* seen = SeenByGroup(&g, v.node);
      if (seen && seen->health == Health::kDown) {
        out[{g.name, s.nodes[v.node].name}] = s.nodes[v.node].health;
      }
    }
  }
  return out;
}

}  // namespace ax
