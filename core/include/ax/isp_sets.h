// ISP sets: named sets of a carrier's networks (ASNs and the ISP names geo
// databases give) that Regions match on (`match.isps`) and that Region, Node
// and Rule `isp` values name. Built-in sets ship for the Chinese carriers
// (telecom, unicom, mobile, cernet; generated from the pinned ASN and geo data,
// docs/geo.md says how); IspSet objects extend or replace them and add more.
// Pure data and lookups: classifying by a set is classify.h's, checking the
// names that refer to sets is validate.cc's.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ax/classify.h"
#include "ax/model.h"
#include "ax/snapshot.h"

namespace ax {

// The `isp` of a Region or Node that does not split by ISP.
inline constexpr std::string_view kAnyIsp = "any";

// The built-in sets' names, ascending.
std::vector<std::string> BuiltinIspSetNames();

// Every known set, by name: each built-in set extended by the IspSet of its
// name (or replaced by it, with replaceBuiltin), then every other declared
// IspSet; ASNs and names ascending and unique. Of two IspSets with one name
// the first counts (Validate reports the second).
std::vector<SnapshotIspSet> ResolveIspSets(const std::vector<IspSet>& declared);

// The set named `name` in `sets` (ascending by name), or null.
const SnapshotIspSet* FindIspSet(const std::vector<SnapshotIspSet>& sets,
                                 std::string_view name);

// Which of a region's ISP criteria a client met, for explanations: an ASN
// the region lists itself (set null), or a set by ASN or by ISP name. A
// database's ISP name matches by the longest set name it begins with: qqwry
// writes its resolvers' networks as "电信DNS服务器", which is "电信"'s.
struct IspMatch {
  const SnapshotIspSet* set = nullptr;
  bool by_name = false;  // the database's ISP name matched, not the ASN
};
std::optional<IspMatch> MatchIsp(const RegionMatch& match,
                                 const std::vector<SnapshotIspSet>& sets,
                                 const GeoInfo& geo);

}  // namespace ax
