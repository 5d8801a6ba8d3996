// Route source names and route equality (the builder deduplicates routes with
// it). Serialisation and validation live in snapshot_json.cc, building in
// build_snapshot.cc.
#include "ax/snapshot.h"

#include <algorithm>
#include <tuple>

namespace ax {
namespace {

bool SameCandidate(const Candidate& a, const Candidate& b) {
  return std::tie(a.node, a.weight, a.score.health, a.score.load,
                  a.score.latency, a.score.priority) ==
         std::tie(b.node, b.weight, b.score.health, b.score.load,
                  b.score.latency, b.score.priority);
}

}  // namespace

const char* RouteSourceName(RouteSource s) {
  switch (s) {
    case RouteSource::kRegion:
      return "Region";
    case RouteSource::kFallbackRegion:
      return "FallbackRegion";
    case RouteSource::kAllHealthy:
      return "AllHealthy";
    case RouteSource::kDomainFallback:
      return "DomainFallback";
    case RouteSource::kFailOpen:
      return "FailOpen";
  }
  return "?";
}

std::optional<RouteSource> ParseRouteSource(std::string_view name) {
  // Inverts RouteSourceName so the names are written down once.
  for (const RouteSource s :
       {RouteSource::kRegion, RouteSource::kFallbackRegion,
        RouteSource::kAllHealthy, RouteSource::kDomainFallback,
        RouteSource::kFailOpen}) {
    if (name == RouteSourceName(s)) return s;
  }
  return std::nullopt;
}

bool Route::operator==(const Route& o) const {
  return std::tie(source, via, rules, canary, hysteresis_held,
                  failover_until_ms) == std::tie(o.source, o.via, o.rules,
                                                 o.canary, o.hysteresis_held,
                                                 o.failover_until_ms) &&
         std::equal(candidates.begin(), candidates.end(), o.candidates.begin(),
                    o.candidates.end(), SameCandidate);
}

}  // namespace ax
