// Vantage groups: where in the network a probe vantage sits (its identity, as
// its ProbeReports carry it) and which vantages measure for a Region's
// clients. Plain data and matching only; the vote over a group's vantages is
// quorum.h's, and using its verdicts for a Region's routes build_snapshot.h's.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "ax/labels.h"
#include "ax/model.h"

namespace ax {

// A vantage's place in the network: what the chart fills from values and the
// Downward API (ax-probe --vantage-area/--vantage-isp/--vantage-label).
struct VantageIdentity {
  std::string area;  // e.g. "cn-south"; "" when not placed
  std::string isp;   // e.g. "unicom"; "" when not placed
  std::map<std::string, std::string> labels;
  bool operator==(const VantageIdentity&) const = default;
};

// The vantages that measure for some Regions' clients: those whose labels
// match `selector` when it is set, else those of `area` whose isp is `isp`
// (any isp of the area when `isp` is "any").
struct VantageGroup {
  // "cn-south-unicom", "cn-south-any", "{isp=unicom}", "{isp in (a,b)}"
  std::string name;
  std::string area;
  std::string isp;
  std::optional<LabelSelector> selector;
};

// The group that measures for `region`'s clients: its vantageSelector, or
// else its area and isp (an empty isp counts as "any"). nullopt for a region
// with neither selector nor area: its clients use the global verdicts.
std::optional<VantageGroup> VantageGroupOf(const Region& region);

// Whether `vantage` belongs to `group`.
bool InVantageGroup(const VantageGroup& group, const VantageIdentity& vantage);

}  // namespace ax
