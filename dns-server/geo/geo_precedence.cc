// Geo field precedence: parsing, formatting, ranking and the merge.
#include "geo/geo_precedence.h"

#include <algorithm>

namespace ax::dns {
namespace {

constexpr std::array<std::string_view, kGeoFieldGroups> kGroupNames = {
    "place", "asn", "isp"};

constexpr std::array<GeoSourceKind, kGeoSourceKinds> kKinds = {
    GeoSourceKind::kMmdb, GeoSourceKind::kAsn, GeoSourceKind::kIpdb,
    GeoSourceKind::kIp2Region};

bool ParseKinds(std::string_view list, std::vector<GeoSourceKind>& kinds,
                std::string* error) {
  kinds.clear();
  while (true) {
    const size_t comma = list.find(',');
    const std::string_view name = list.substr(0, comma);
    const auto kind = std::find_if(
        kKinds.begin(), kKinds.end(),
        [&](GeoSourceKind k) { return GeoSourceKindName(k) == name; });
    if (kind == kKinds.end()) {
      *error = "unknown geo source kind \"" + std::string(name) +
               "\" (known: mmdb, asn, ipdb, ip2region)";
      return false;
    }
    if (std::find(kinds.begin(), kinds.end(), *kind) != kinds.end()) {
      *error = "geo source kind \"" + std::string(name) + "\" listed twice";
      return false;
    }
    kinds.push_back(*kind);
    if (comma == std::string_view::npos) return true;
    list.remove_prefix(comma + 1);
  }
}

bool SaysSomething(const GeoFacts& facts, int group) {
  switch (static_cast<GeoFieldGroup>(group)) {
    case GeoFieldGroup::kPlace:
      return !facts.country.empty();
    case GeoFieldGroup::kAsn:
      return facts.asn != 0;
    case GeoFieldGroup::kIsp:
      return !facts.isp.empty();
  }
  return false;
}

}  // namespace

std::string_view GeoSourceKindName(GeoSourceKind kind) {
  switch (kind) {
    case GeoSourceKind::kMmdb:
      return "mmdb";
    case GeoSourceKind::kAsn:
      return "asn";
    case GeoSourceKind::kIpdb:
      return "ipdb";
    case GeoSourceKind::kIp2Region:
      return "ip2region";
  }
  return "?";
}

bool SetGeoPrecedence(GeoPrecedence& precedence, std::string_view assignment,
                      std::string* error) {
  std::string scratch;
  if (error == nullptr) error = &scratch;
  const size_t eq = assignment.find('=');
  const auto group =
      std::find(kGroupNames.begin(), kGroupNames.end(),
                assignment.substr(0, eq == std::string_view::npos ? 0 : eq));
  if (eq == std::string_view::npos || group == kGroupNames.end()) {
    *error = "bad geo precedence \"" + std::string(assignment) +
             "\": expected GROUP=KIND,... with GROUP one of place, asn, isp "
             "(e.g. isp=ipdb,ip2region)";
    return false;
  }
  std::vector<GeoSourceKind> kinds;
  if (!ParseKinds(assignment.substr(eq + 1), kinds, error)) {
    *error = "geo precedence \"" + std::string(assignment) + "\": " + *error;
    return false;
  }
  precedence.order[group - kGroupNames.begin()] = std::move(kinds);
  return true;
}

std::string FormatGeoPrecedence(const GeoPrecedence& precedence) {
  std::string out;
  for (int g = 0; g < kGeoFieldGroups; ++g) {
    if (g > 0) out += ' ';
    out.append(kGroupNames[g]).push_back('=');
    for (size_t i = 0; i < precedence.order[g].size(); ++i) {
      if (i > 0) out += ',';
      out += GeoSourceKindName(precedence.order[g][i]);
    }
  }
  return out;
}

RankedSources RankSources(std::vector<std::unique_ptr<const GeoSource>> sources,
                          const GeoPrecedence& precedence, bool cities) {
  RankedSources ranked;
  ranked.cities = cities;
  ranked.ranks.assign(sources.size(), {kUnranked, kUnranked, kUnranked});
  for (int g = 0; g < kGeoFieldGroups; ++g) {
    uint8_t next = 0;
    for (GeoSourceKind kind : precedence.order[g]) {
      for (size_t s = 0; s < sources.size(); ++s) {
        // More than 254 files of one group would share the last rank; the
        // flags cannot name that many.
        if (sources[s]->kind() == kind) {
          ranked.ranks[s][g] = next;
          if (next < kUnranked - 1) ++next;
        }
      }
    }
  }
  ranked.sources = std::move(sources);
  return ranked;
}

void RankedSources::MergeInto(RankedFacts& merged, size_t s,
                              GeoFacts facts) const {
  if (!cities) facts.city = {};
  merged.Merge(facts, ranks[s]);
}

bool RankedFacts::CouldTake(const GeoRanks& other_ranks) const {
  for (int g = 0; g < kGeoFieldGroups; ++g) {
    if (other_ranks[g] < ranks[g]) return true;
  }
  return false;
}

void RankedFacts::Merge(const GeoFacts& other, const GeoRanks& other_ranks) {
  for (int g = 0; g < kGeoFieldGroups; ++g) {
    if (other_ranks[g] >= ranks[g] || !SaysSomething(other, g)) continue;
    ranks[g] = other_ranks[g];
    switch (static_cast<GeoFieldGroup>(g)) {
      case GeoFieldGroup::kPlace:
        facts.country = other.country;
        facts.subdivision = other.subdivision;
        facts.city = other.city;
        break;
      case GeoFieldGroup::kAsn:
        facts.asn = other.asn;
        break;
      case GeoFieldGroup::kIsp:
        facts.isp = other.isp;
        break;
    }
  }
}

}  // namespace ax::dns
