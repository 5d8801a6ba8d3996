// Vantage groups (vantage.h): a Region's group and membership.
#include "ax/vantage.h"

#include "ax/isp_sets.h"
#include "ax/labels.h"

namespace ax {

std::optional<VantageGroup> VantageGroupOf(const Region& region) {
  if (region.vantage_selector) {
    return VantageGroup{
        .name = "{" + SelectorText(*region.vantage_selector) + "}",
        .area = "",
        .isp = "",
        .selector = region.vantage_selector};
  }
  if (region.area.empty()) return std::nullopt;
  const std::string isp =
      region.isp.empty() ? std::string(kAnyIsp) : region.isp;
  return VantageGroup{.name = region.area + "-" + isp,
                      .area = region.area,
                      .isp = isp,
                      .selector = std::nullopt};
}

bool InVantageGroup(const VantageGroup& group, const VantageIdentity& vantage) {
  if (group.selector) return Matches(*group.selector, vantage.labels);
  return vantage.area == group.area &&
         (group.isp == kAnyIsp || vantage.isp == group.isp);
}

}  // namespace ax
