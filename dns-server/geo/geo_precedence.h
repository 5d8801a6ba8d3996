// Which geo source supplies which field when several are loaded: per field
// group (the place — country, subdivision, city —, the ASN, the carrier), the
// source kinds in order of trust, e.g. the carrier from ipdb, the ASN from
// the ASN file, the place from dbip. For an address, each group takes the
// value of the best-ranked source that says something about it, so a gap in
// one database is filled by the next. Used alike by the compiled tables and
// by direct lookups; nothing here reads a file.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "geo/geo_source.h"

namespace ax::dns {

// "mmdb", "asn", "ipdb", "ip2region": as flags and precedence name them.
std::string_view GeoSourceKindName(GeoSourceKind kind);

// The place is one group: a country from one source with a province from
// another would name a place neither says.
enum class GeoFieldGroup : uint8_t { kPlace, kAsn, kIsp };
inline constexpr int kGeoFieldGroups = 3;

struct GeoPrecedence {
  // Per GeoFieldGroup, the kinds that may supply it, best first; files of
  // one kind rank in the order given. A kind not listed never supplies the
  // group. Defaults: place from MMDB, then ipdb, then ip2region; ASN from the
  // ASN files, then the location records; carrier from ipdb, then ip2region,
  // then the location records (GeoIP2-ISP style files with an isp path).
  std::array<std::vector<GeoSourceKind>, kGeoFieldGroups> order{{
      {GeoSourceKind::kMmdb, GeoSourceKind::kIpdb, GeoSourceKind::kIp2Region},
      {GeoSourceKind::kAsn, GeoSourceKind::kMmdb},
      {GeoSourceKind::kIpdb, GeoSourceKind::kIp2Region, GeoSourceKind::kMmdb},
  }};

  bool operator==(const GeoPrecedence&) const = default;
};

// Applies "GROUP=KIND,KIND..." (GROUP: place, asn, isp; KIND: mmdb, asn,
// ipdb, ip2region; each kind at most once) to `precedence`. False with
// `error` naming the problem.
bool SetGeoPrecedence(GeoPrecedence& precedence, std::string_view assignment,
                      std::string* error);

// "place=mmdb,ipdb,ip2region asn=asn,mmdb isp=ipdb,ip2region,mmdb".
std::string FormatGeoPrecedence(const GeoPrecedence& precedence);

// A source's rank per group: lower is trusted more; kUnranked: it never
// supplies the group.
inline constexpr uint8_t kUnranked = UINT8_MAX;
using GeoRanks = std::array<uint8_t, kGeoFieldGroups>;
inline bool RanksNothing(const GeoRanks& ranks) {
  return ranks == GeoRanks{kUnranked, kUnranked, kUnranked};
}

struct RankedFacts;

// Sources with their ranks, in the order ranks were given (the kinds' order
// in GeoDatabases, then file order).
struct RankedSources {
  std::vector<std::unique_ptr<const GeoSource>> sources;
  std::vector<GeoRanks> ranks;  // parallel to sources
  bool cities = false;          // GeoDatabases::cities: else cities dropped

  // Merges what source `s` says into `merged`: compiled and direct lookups
  // alike.
  void MergeInto(RankedFacts& merged, size_t s, GeoFacts facts) const;
};
RankedSources RankSources(std::vector<std::unique_ptr<const GeoSource>> sources,
                          const GeoPrecedence& precedence, bool cities);

// Facts from several sources combined group by group.
struct RankedFacts {
  GeoFacts facts;
  GeoRanks ranks{kUnranked, kUnranked, kUnranked};

  // Takes each group `other` says something about (a country, an ASN, a
  // carrier) where `other_ranks` ranks better than what is held.
  void Merge(const GeoFacts& other, const GeoRanks& other_ranks);
  void Merge(const RankedFacts& other) { Merge(other.facts, other.ranks); }
  // Whether a source ranked `other_ranks` could still change anything.
  bool CouldTake(const GeoRanks& other_ranks) const;
  bool empty() const { return RanksNothing(ranks); }
};

}  // namespace ax::dns
