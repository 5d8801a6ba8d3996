// The snapshot invariants (snapshot_validate.h): one Check* per list, each
// reporting every problem with its JSON path. Paths and the score precision
// come from snapshot_doc.h so they match what snapshot_json.cc reads and
// writes; nothing here parses, serialises or stops at the first error.
#include "ax/snapshot_validate.h"

#include <cmath>
#include <iterator>
#include <map>
#include <string_view>

#include "ax/isp_sets.h"
#include "ax/snapshot_limits.h"
#include "snapshot_doc.h"

namespace ax {
namespace {

using snapshot_doc::Add, snapshot_doc::Child, snapshot_doc::Element,
    snapshot_doc::Errors, snapshot_doc::kScoreDecimals, snapshot_doc::Quantise,
    snapshot_doc::Quote;

// Judged as written: a factor that rounds to 0 would fail the next load.
bool IsScore(double v) {
  const double q = Quantise(v, kScoreDecimals);
  return q > 0 && q <= 1;  // false for NaN
}
bool IsMeasurement(double v) { return v == -1 || (std::isfinite(v) && v >= 0); }

// Reports empty and repeated values of `items[i].*field` (JSON key `key`);
// returns value -> index of first use.
template <typename T>
std::map<std::string_view, size_t> CheckUnique(const std::vector<T>& items,
                                               std::string_view list,
                                               std::string_view key,
                                               std::string T::*field,
                                               Errors& errors) {
  std::map<std::string_view, size_t> first;
  for (size_t i = 0; i < items.size(); ++i) {
    const std::string_view name = items[i].*field;
    if (name.empty()) {
      Add(errors, Child(Element(list, i), key), "must not be empty");
      continue;
    }
    const auto [it, inserted] = first.emplace(name, i);
    if (!inserted) {
      Add(errors, Child(Element(list, i), key),
          "duplicate " + Quote(name) + " (first at " +
              Element(list, it->second) + ")");
    }
  }
  return first;
}

void CheckNodes(const Snapshot& s, Errors& errors) {
  CheckUnique(s.nodes, "nodes", "name", &SnapshotNode::name, errors);
  for (size_t i = 0; i < s.nodes.size(); ++i) {
    const SnapshotNode& n = s.nodes[i];
    const std::string at = Element("nodes", i);
    if (n.addresses.empty()) {
      Add(errors, at + ".addrs", "a node needs at least one address");
    }
    if (!IsMeasurement(n.latency_ms)) {
      Add(errors, at + ".latencyMs", "must be >= 0, or -1 for unmeasured");
    }
    if (!IsMeasurement(n.utilisation)) {
      Add(errors, at + ".util", "must be >= 0, or -1 for unknown");
    }
    if (n.up_since_ms < 0) {
      Add(errors, at + ".upSinceMs", "must not be negative");
    }
    if (n.has_location && !(std::abs(n.location.lat) <= 90)) {
      Add(errors, at + ".loc[0]", "latitude must be within -90..90");
    }
    if (n.has_location && !(std::abs(n.location.lon) <= 180)) {
      Add(errors, at + ".loc[1]", "longitude must be within -180..180");
    }
  }
}

using NameIndex = std::map<std::string_view, size_t>;

// Strictly ascending: sorted and unique, which lookups by binary search (and
// the classifier's equality of sets) rely on.
template <typename T>
void CheckAscending(const std::vector<T>& values, const std::string& at,
                    Errors& errors) {
  for (size_t j = 1; j < values.size(); ++j) {
    if (!(values[j - 1] < values[j])) {
      Add(errors, Element(at, j),
          "must be above the one before (ascending, unique)");
    }
  }
}

// Sets by ascending name, each with ascending ASNs (none 0) and names.
void CheckIspSets(const Snapshot& s, Errors& errors) {
  CheckUnique(s.isp_sets, "ispSets", "name", &SnapshotIspSet::name, errors);
  for (size_t i = 1; i < s.isp_sets.size(); ++i) {
    if (s.isp_sets[i - 1].name > s.isp_sets[i].name) {
      Add(errors, Element("ispSets", i) + ".name",
          "sets must be in name order");
    }
  }
  for (size_t i = 0; i < s.isp_sets.size(); ++i) {
    const SnapshotIspSet& set = s.isp_sets[i];
    const std::string at = Element("ispSets", i);
    CheckAscending(set.asns, at + ".asns", errors);
    CheckAscending(set.names, at + ".names", errors);
    if (!set.asns.empty() && set.asns.front() == 0) {
      Add(errors, at + ".asns[0]", "AS 0 matches nothing");
    }
  }
}

NameIndex CheckRegions(const Snapshot& s, Errors& errors) {
  NameIndex regions =
      CheckUnique(s.regions, "regions", "name", &SnapshotRegion::name, errors);
  for (size_t i = 0; i < s.regions.size(); ++i) {
    const auto& isps = s.regions[i].match.isps;
    for (size_t j = 0; j < isps.size(); ++j) {
      if (!FindIspSet(s.isp_sets, isps[j])) {
        Add(errors, Element(Element("regions", i) + ".match.isps", j),
            "no ISP set named " + Quote(isps[j]));
      }
    }
    const auto& fallbacks = s.regions[i].fallback_regions;
    for (size_t j = 0; j < fallbacks.size(); ++j) {
      const auto it = regions.find(fallbacks[j]);
      if (it == regions.end() || it->second == i) {
        Add(errors, Element(Element("regions", i) + ".fallbacks", j),
            it == regions.end() ? "no region named " + Quote(fallbacks[j])
                                : "a region cannot fall back to itself");
      }
    }
  }
  return regions;
}

NameIndex CheckDomains(const Snapshot& s, Errors& errors) {
  NameIndex domains =
      CheckUnique(s.domains, "domains", "name", &SnapshotDomain::name, errors);
  CheckUnique(s.domains, "domains", "fqdn", &SnapshotDomain::fqdn, errors);
  for (size_t i = 0; i < s.domains.size(); ++i) {
    const SnapshotDomain& d = s.domains[i];
    const std::string at = Element("domains", i);
    if (d.max_answers == 0) Add(errors, at + ".maxAnswers", "must be >= 1");
    if (d.slow_start_ms < 0) {
      Add(errors, at + ".slowStartMs", "must not be negative");
    }
    for (size_t j = 0; j < d.srv.size(); ++j) {
      // Labels of the owner name _<service>._<protocol>.<fqdn>: ServingState
      // checks the name as a whole.
      const SrvService& srv = d.srv[j];
      if (srv.service.empty() || srv.protocol.empty() || srv.port == 0) {
        Add(errors, Element(at + ".srv", j),
            "needs a service, a protocol and a port 1..65535");
      }
    }
    if (d.routes.size() != s.regions.size() + 1) {
      Add(errors, at + ".routes",
          "has " + std::to_string(d.routes.size()) + " entries, expected " +
              std::to_string(s.regions.size() + 1) +
              " (one per region, then the route for unmatched clients)");
    }
    for (size_t j = 0; j < d.routes.size(); ++j) {
      const std::string route_at = Element(at + ".routes", j);
      if (d.routes[j] >= s.routes.size()) {
        Add(errors, route_at,
            "route index " + std::to_string(d.routes[j]) + " out of range (" +
                std::to_string(s.routes.size()) + " routes)");
      } else if (s.routes[d.routes[j]].source == RouteSource::kDomainFallback &&
                 d.fallback.empty()) {
        Add(errors, route_at,
            "uses a DomainFallback route but the domain has no fallback");
      }
    }
  }
  return domains;
}

void CheckCandidates(const Snapshot& s, const Route& r, const std::string& at,
                     Errors& errors) {
  std::vector<bool> listed(s.nodes.size());
  for (size_t j = 0; j < r.candidates.size(); ++j) {
    const Candidate& c = r.candidates[j];
    const std::string cat = Element(at + ".candidates", j);
    if (c.node >= s.nodes.size()) {
      Add(errors, cat + "[0]",
          "node index " + std::to_string(c.node) + " out of range (" +
              std::to_string(s.nodes.size()) + " nodes)");
    } else if (listed[c.node]) {
      Add(errors, cat + "[0]", "node listed twice in one route");
    } else if (s.nodes[c.node].admin_state == AdminState::kDisabled) {
      Add(errors, cat + "[0]", "a Disabled node is never a candidate");
    } else {
      listed[c.node] = true;
    }
    if (!(std::isfinite(c.weight) && c.weight >= 0)) {
      Add(errors, cat + "[1]", "weight must be a finite number >= 0");
    }
    const double parts[] = {c.score.health, c.score.load, c.score.latency,
                            c.score.priority};
    for (size_t k = 0; k < std::size(parts); ++k) {
      if (!IsScore(parts[k])) {
        Add(errors, Element(cat, k + 2),
            "score factor must be within (0, 1] at " +
                std::to_string(kScoreDecimals) + " decimals");
      }
    }
    if (c.ramp_start_ms < 0) {
      Add(errors, cat + "[6]", "ramp start must not be negative");
    }
  }
}

// A spill route is a FallbackRegion route of its own (no further spill, so a
// query follows at most one hop), taken by a share of a Region route's clients.
void CheckSpill(const Snapshot& s, const Route& r, const std::string& at,
                Errors& errors) {
  if (r.spill_route == kNoIndex) {
    if (r.spill_share != 0) {
      Add(errors, at + ".spillShare", "must be 0 without a spillRoute");
    }
    return;
  }
  if (r.source != RouteSource::kRegion) {
    Add(errors, at + ".spillRoute", "only Region routes spill over");
  }
  if (!(r.spill_share > 0 && r.spill_share < 1)) {
    Add(errors, at + ".spillShare", "must be within (0, 1) with a spillRoute");
  }
  if (r.spill_route >= s.routes.size()) {
    Add(errors, at + ".spillRoute",
        "route index " + std::to_string(r.spill_route) + " out of range (" +
            std::to_string(s.routes.size()) + " routes)");
  } else if (s.routes[r.spill_route].source != RouteSource::kFallbackRegion) {
    Add(errors, at + ".spillRoute", "must name a FallbackRegion route");
  }
}

void CheckRoutes(const Snapshot& s, const NameIndex& regions, Errors& errors) {
  for (size_t i = 0; i < s.routes.size(); ++i) {
    const Route& r = s.routes[i];
    const std::string at = Element("routes", i);
    const bool fallback = r.source == RouteSource::kDomainFallback;
    // Fail-open may be empty: a domain can select no node that is not disabled.
    const bool may_be_empty = fallback || r.source == RouteSource::kFailOpen;
    if (r.candidates.empty() && !may_be_empty) {
      Add(errors, at + ".candidates",
          std::string("a ") + RouteSourceName(r.source) +
              " route needs at least one candidate");
    }
    if (!r.candidates.empty() && fallback) {
      Add(errors, at + ".candidates",
          "a DomainFallback route answers from the domain, not from nodes");
    }
    if (r.source == RouteSource::kFallbackRegion) {
      if (!regions.contains(r.via)) {
        Add(errors, at + ".via", "no region named " + Quote(r.via));
      }
    } else if (!r.via.empty()) {
      Add(errors, at + ".via", "only FallbackRegion routes name a region");
    }
    CheckCandidates(s, r, at, errors);
    if (r.canary != kNoIndex && r.canary >= s.canaries.size()) {
      Add(errors, at + ".canary",
          "canary index " + std::to_string(r.canary) + " out of range (" +
              std::to_string(s.canaries.size()) + " canaries)");
    }
    if (r.failover_until_ms < 0) {
      Add(errors, at + ".failoverUntilMs", "must not be negative");
    }
    CheckSpill(s, r, at, errors);
  }
}

void CheckCanaries(const Snapshot& s, const NameIndex& domains,
                   Errors& errors) {
  CheckUnique(s.canaries, "canaries", "name", &SnapshotCanary::name, errors);
  for (size_t i = 0; i < s.canaries.size(); ++i) {
    const SnapshotCanary& c = s.canaries[i];
    const std::string at = Element("canaries", i);
    if (!domains.contains(c.domain)) {
      Add(errors, at + ".domain", "no domain named " + Quote(c.domain));
    }
    if (c.node >= s.nodes.size()) {
      Add(errors, at + ".node",
          "node index " + std::to_string(c.node) + " out of range (" +
              std::to_string(s.nodes.size()) + " nodes)");
    }
    if (!(c.percent >= 0 && c.percent <= 100)) {
      Add(errors, at + ".percent", "must be within 0..100");
    }
  }
}

void CheckGeoOverrides(const Snapshot& s, Errors& errors) {
  CheckUnique(s.geo_overrides, "geoOverrides", "name",
              &SnapshotGeoOverride::name, errors);
  for (size_t i = 0; i < s.geo_overrides.size(); ++i) {
    const SnapshotGeoOverride& o = s.geo_overrides[i];
    const std::string at = Element("geoOverrides", i);
    if (o.region >= s.regions.size()) {
      Add(errors, at + ".region",
          "region index " + std::to_string(o.region) + " out of range (" +
              std::to_string(s.regions.size()) + " regions)");
    }
    if (o.cidrs.empty()) Add(errors, at + ".cidrs", "must not be empty");
  }
}

void CheckVantageGroups(const Snapshot& s, Errors& errors) {
  CheckUnique(s.vantage_groups, "vantageGroups", "name",
              &SnapshotVantageGroup::name, errors);
  for (size_t i = 0; i < s.regions.size(); ++i) {
    const uint32_t g = s.regions[i].vantage_group;
    if (g != kNoIndex && g >= s.vantage_groups.size()) {
      Add(errors, Element("regions", i) + ".vantageGroup",
          "vantage group index " + std::to_string(g) + " out of range (" +
              std::to_string(s.vantage_groups.size()) + " groups)");
    }
  }
  for (size_t i = 0; i < s.vantage_groups.size(); ++i) {
    const std::string at = Element("vantageGroups", i) + ".nodes";
    const std::vector<GroupNodeView>& nodes = s.vantage_groups[i].nodes;
    for (size_t j = 0; j < nodes.size(); ++j) {
      const std::string el = Element(at, j);
      if (nodes[j].node >= s.nodes.size()) {
        Add(errors, el + "[0]",
            "node index " + std::to_string(nodes[j].node) + " out of range (" +
                std::to_string(s.nodes.size()) + " nodes)");
      } else if (j > 0 && nodes[j].node <= nodes[j - 1].node) {
        Add(errors, el + "[0]", "node indices must ascend (unique)");
      }
      if (!IsMeasurement(nodes[j].latency_ms)) {
        Add(errors, el + "[2]", "must be >= 0, or -1 for unmeasured");
      }
      if (nodes[j].up_since_ms < 0) {
        Add(errors, el + "[5]", "must not be negative");
      }
    }
  }
}

}  // namespace

std::string SnapshotError::ToString() const {
  return path.empty() ? message : path + ": " + message;
}

std::vector<SnapshotError> ValidateSnapshot(const Snapshot& snapshot) {
  // Over a limit, the rest is not worth walking.
  Errors errors = CheckSnapshotCounts(CountsOf(snapshot));
  if (!errors.empty()) return errors;
  CheckNodes(snapshot, errors);
  CheckIspSets(snapshot, errors);
  const NameIndex regions = CheckRegions(snapshot, errors);
  const NameIndex domains = CheckDomains(snapshot, errors);
  CheckRoutes(snapshot, regions, errors);
  CheckCanaries(snapshot, domains, errors);
  CheckVantageGroups(snapshot, errors);
  CheckGeoOverrides(snapshot, errors);
  return errors;
}

}  // namespace ax
