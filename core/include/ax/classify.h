// Client classification, level 1 of the route table: which Region a
// client belongs to, from its address and what the geo/ASN databases said about
// it, and how wide an ECS scope that answer holds for. Hot path: Classify never
// allocates. Reading the databases is the DNS server's job; routes per region
// are decide.h's.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ax/ip.h"
#include "ax/model.h"
#include "ax/prefix_table.h"
#include "ax/snapshot.h"

namespace ax {

// What the geo and ASN databases said about the client. Empty strings and asn 0
// mean "unknown" and match nothing.
struct GeoInfo {
  std::string_view country;      // ISO 3166-1 alpha-2, upper case: "CN"
  std::string_view subdivision;  // ISO 3166-2: "CN-GD"
  uint32_t asn = 0;
  bool has_location = false;
  GeoPoint location;
  // Length of the database network the answers above hold for (the longest of
  // the geo and ASN databases' prefix lengths when both were consulted); -1:
  // unknown, which makes geo-dependent answers scoped to the full address.
  int geo_prefix_length = -1;
  // The carrier as a database names it ("电信"), for ISP sets' names, and
  // the city as its database names it; last so that positional initialisers
  // of the fields above stay valid.
  std::string_view isp;
  std::string_view city;
};

// Specificity of a geo-step match, 2 * geo level + ISP: a city match
// outranks any subdivision match, which outranks any country match; equal
// geo is broken by also matching the region's ISP criteria (asns, isps), and
// a region declaring only those ranks below every geo match. Values 1..7;
// the geo level is the value without kGeoIsp.
inline constexpr uint8_t kGeoCity = 6;
inline constexpr uint8_t kGeoSubdivision = 4;
inline constexpr uint8_t kGeoCountry = 2;
inline constexpr uint8_t kGeoIsp = 1;

struct Classification {
  // kOverride: a GeoOverride's CIDR (a correction above the database).
  enum class Step : uint8_t { kOverride, kCidr, kGeo, kCatchAll, kNone };
  // Index into the regions the Classifier was built from.
  uint32_t region = kNoIndex;
  Step step = Step::kNone;
  // kCidr, kOverride: the matched prefix length. kGeo: the sum of the kGeo*
  // values that matched. Otherwise 0.
  uint8_t specificity = 0;
  // ECS SCOPE PREFIX-LENGTH (RFC 7871 §7.2.1) for answers derived from this
  // region; see Classifier::Classify for the rule.
  int scope_prefix_length = 0;
  IpPrefix cidr;  // kCidr, kOverride: the matched prefix, for explanations
  // kOverride: index into the overrides the Classifier was built from.
  uint32_t geo_override = kNoIndex;
};

class Classifier {
 public:
  // Keeps indices into `regions`, not references: the vectors may go away
  // afterwards. A CIDR claimed by two regions goes to the first (validation
  // reports such overlaps; here region order keeps the result deterministic).
  // `isp_sets` (ascending by name) resolves the regions' match.isps; a name it
  // lacks matches nothing (a validated snapshot has them all).
  // `geo_overrides` join the regions' CIDRs; a prefix both declare goes to
  // the override (the later, deliberate correction).
  Classifier(const std::vector<SnapshotRegion>& regions,
             const std::vector<SnapshotIspSet>& isp_sets,
             const std::vector<SnapshotGeoOverride>& geo_overrides = {});
  explicit Classifier(const Snapshot& snapshot)
      : Classifier(snapshot.regions, snapshot.isp_sets,
                   snapshot.geo_overrides) {}

  // First step that claims the client wins:
  //  1. kCidr or kOverride: the longest prefix over every region's
  //     match.cidrs and every override's cidrs.
  //  2. kGeo: regions whose declared criterion groups all match: the geo group
  //     (the city, qualified by the client's subdivision or country, in
  //     cities, or subdivision in subdivisions, or country in countries) and
  //     the ISP (by the longest set name the database's ISP name begins
  //     with)
  //     group (asn in asns or in a set of isps, or the database's ISP name in
  //     a set of isps). The highest specificity (kGeo* above) wins, ties go to
  //     region order.
  //  3. kCatchAll: the first region with match.catch_all.
  //  4. kNone.
  // Scope: D = cidr table CoveringDepth(client), the widest block with the same
  // CIDR outcome (match or miss). A CIDR match, or any answer when no region
  // has geo or ASN criteria, depends on nothing else: scope D (0 when there are
  // no CIDRs either, as with a lone catch-all). Otherwise the geo step decided,
  // even if only by matching nothing, so the answer holds only as far as the
  // database network does too: max(D, geo_prefix_length), or the full address
  // length when that is unknown. With ECS the client is the option's address;
  // a scope longer than its source prefix is legitimate and tells the resolver
  // the source was too short (RFC 7871 §7.2.1).
  Classification Classify(const IpAddress& client, const GeoInfo& geo) const;

  // The geo step's verdict: the best region whose criteria all match `geo`
  // and its specificity (kGeo* sum); kNoIndex and 0 when none matches.
  struct GeoMatch {
    uint32_t region = kNoIndex;
    uint8_t specificity = 0;
    bool operator==(const GeoMatch&) const = default;
  };
  GeoMatch MatchGeo(const GeoInfo& geo) const;

  // Classify with the geo step decided beforehand (a table compiled from
  // MatchGeo over every database value): `match` holds across the client's
  // block of `geo_prefix_length`. Same result as Classify given the GeoInfo
  // the match came from, with that prefix length. `match` by reference: by
  // value it was packed into a register from the caller's field-wise stores
  // (twice a stalled store-to-load forward per query on the DNS path).
  Classification Classify(const IpAddress& client, const GeoMatch& match,
                          int geo_prefix_length) const;

  // False: no region has geo or ASN criteria, classification never needs geo.
  bool has_geo_regions() const { return has_geo_regions_; }

  // True when MatchGeo answers alike for every input: the same regions, by
  // index, declare the same cities, subdivisions, countries, ASNs and ISP
  // names (sets
  // resolved; CIDRs, the catch-all and everything else may differ). Tables
  // compiled from one classifier's geo step then serve the other, so a snapshot
  // that leaves the Regions' geo criteria alone need not compile them again.
  bool SameGeoStep(const Classifier& other) const;

 private:
  // Lets the string-keyed maps be probed with a string_view without building a
  // string (C++20 heterogeneous lookup needs both a transparent hash and
  // equality).
  struct StringHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const {
      return std::hash<std::string_view>{}(s);
    }
  };
  using RegionList = std::vector<uint32_t>;  // ascending region indices
  using StringIndex =
      std::unordered_map<std::string, RegionList, StringHash, std::equal_to<>>;

  // Per region: which criterion groups it declares.
  static constexpr uint8_t kDeclaresGeo = 1;
  static constexpr uint8_t kDeclaresIsp = 2;

  static const RegionList* Find(const StringIndex& index, std::string_view key);
  // The regions of the longest set name `isp` begins with (isp_sets.h).
  const RegionList* FindIspName(std::string_view isp) const;
  // The regions naming "`place`/`city`".
  const RegionList* FindCity(std::string_view place,
                             std::string_view city) const;
  const RegionList* FindAsn(uint32_t asn) const;
  // Classify with the geo step deferred to `geo_step`() -> {GeoMatch, geo
  // prefix length}, called only when the CIDR step did not decide.
  template <typename GeoStep>
  Classification ClassifyWith(const IpAddress& client, GeoStep geo_step) const;

  // A CIDR's value: an index below the region count is that region's own
  // CIDR; region count + o is override o.
  PrefixTable cidrs_;
  std::vector<uint32_t> override_regions_;  // per override: its region
  StringIndex by_city_;                     // "CN-GD/Shenzhen", "US/Ashburn"
  StringIndex by_subdivision_;
  StringIndex by_country_;
  std::unordered_map<uint32_t, RegionList> by_asn_;  // asns and the sets' ASNs
  StringIndex by_isp_name_;                          // the sets' ISP names
  std::vector<uint8_t> declares_;                    // kDeclares* per region
  bool has_geo_regions_ = false;
  uint32_t catch_all_ = kNoIndex;
};

// One line for explanations, e.g. "cidr 203.0.113.0/24 of region
// cn-south-telecom", "city CN-GD/Shenzhen -> region sz", "subdivision CN-GD +
// ASN 4134 -> region cn-south-telecom",
// "subdivision CN-GD + ISP set telecom (ASN 4134) -> region ...", "no match;
// catch-all region default". `snapshot` and `geo` must be the ones the
// classification was made with.
std::string Describe(const Classification& c, const Snapshot& snapshot,
                     const GeoInfo& geo);

}  // namespace ax
