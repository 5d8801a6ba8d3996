// CheckSnapshotCounts (snapshot_limits.h): each list against its limit.
#include "ax/snapshot_limits.h"

#include <string>

namespace ax {

SnapshotCounts CountsOf(const Snapshot& s) {
  return {.nodes = s.nodes.size(),
          .regions = s.regions.size(),
          .domains = s.domains.size(),
          .routes = s.routes.size(),
          .canaries = s.canaries.size(),
          .vantage_groups = s.vantage_groups.size(),
          .isp_sets = s.isp_sets.size(),
          .geo_overrides = s.geo_overrides.size()};
}

std::vector<SnapshotError> CheckSnapshotCounts(const SnapshotCounts& c) {
  std::vector<SnapshotError> errors;
  const struct {
    const char* list;
    size_t count;
    size_t limit;
  } lists[] = {{"nodes", c.nodes, kSnapshotMaxNodes},
               {"regions", c.regions, kSnapshotMaxRegions},
               {"domains", c.domains, kSnapshotMaxDomains},
               {"routes", c.routes, kSnapshotMaxRoutes},
               {"canaries", c.canaries, kSnapshotMaxCanaries},
               {"vantageGroups", c.vantage_groups, kSnapshotMaxVantageGroups},
               {"ispSets", c.isp_sets, kSnapshotMaxIspSets},
               {"geoOverrides", c.geo_overrides, kSnapshotMaxGeoOverrides}};
  for (const auto& l : lists) {
    if (l.count > l.limit) {
      errors.push_back({l.list, std::to_string(l.count) +
                                    " entries, over the limit of " +
                                    std::to_string(l.limit)});
    }
  }
  // Counts are below 2^32 (vectors of structs), so the product fits.
  const size_t cells = c.domains * (c.regions + 1 + c.nodes);
  if (cells > kSnapshotMaxDomainCells) {
    errors.push_back({"", std::to_string(c.domains) + " domains x (" +
                              std::to_string(c.regions) + " regions + 1 + " +
                              std::to_string(c.nodes) +
                              " nodes) = " + std::to_string(cells) +
                              " cells, over the limit of " +
                              std::to_string(kSnapshotMaxDomainCells) +
                              " (the answer counters of every ax-dns worker)"});
  }
  return errors;
}

}  // namespace ax
