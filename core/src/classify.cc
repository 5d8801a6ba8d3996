// Classifier: build-time indexing of region match criteria (allocates) and the
// per-query classification (must not allocate), plus its text explanation.
#include "ax/classify.h"

#include <algorithm>
#include <array>
#include <cstring>

#include "ax/isp_sets.h"

namespace ax {
namespace {

// Appends `region` unless it is already last: regions are indexed in order, so
// this drops only a region listing the same key twice.
void AddRegion(std::vector<uint32_t>& list, uint32_t region) {
  if (list.empty() || list.back() != region) list.push_back(region);
}

}  // namespace

Classifier::Classifier(const std::vector<SnapshotRegion>& regions,
                       const std::vector<SnapshotIspSet>& isp_sets,
                       const std::vector<SnapshotGeoOverride>& geo_overrides)
    : declares_(regions.size(), 0) {
  // Overrides first: a prefix keeps its first value (see header).
  const uint32_t region_count = static_cast<uint32_t>(regions.size());
  for (uint32_t o = 0; o < geo_overrides.size(); ++o) {
    for (const IpPrefix& cidr : geo_overrides[o].cidrs) {
      cidrs_.Insert(cidr, region_count + o);
    }
    override_regions_.push_back(geo_overrides[o].region);
  }
  for (uint32_t r = 0; r < regions.size(); ++r) {
    const RegionMatch& match = regions[r].match;
    // A CIDR already claimed stays with the earlier region (see header).
    for (const IpPrefix& cidr : match.cidrs) cidrs_.Insert(cidr, r);
    for (const std::string& city : match.cities) {
      AddRegion(by_city_[city], r);
    }
    for (const std::string& s : match.subdivisions) {
      AddRegion(by_subdivision_[s], r);
    }
    for (const std::string& c : match.countries) AddRegion(by_country_[c], r);
    for (uint32_t asn : match.asns) AddRegion(by_asn_[asn], r);
    // A set's entries index like the region's own ASNs (the region's lists
    // stay ascending: every key gets region r after all earlier regions).
    for (const std::string& name : match.isps) {
      const SnapshotIspSet* set = FindIspSet(isp_sets, name);
      if (!set) continue;
      for (uint32_t asn : set->asns) AddRegion(by_asn_[asn], r);
      for (const std::string& n : set->names) AddRegion(by_isp_name_[n], r);
    }
    if (!match.cities.empty() || !match.subdivisions.empty() ||
        !match.countries.empty()) {
      declares_[r] |= kDeclaresGeo;
    }
    if (!match.asns.empty() || !match.isps.empty()) {
      declares_[r] |= kDeclaresIsp;
    }
    has_geo_regions_ = has_geo_regions_ || declares_[r] != 0;
    if (match.catch_all && catch_all_ == kNoIndex) catch_all_ = r;
  }
}

bool Classifier::SameGeoStep(const Classifier& other) const {
  // Exactly what MatchGeo reads.
  return declares_ == other.declares_ && by_city_ == other.by_city_ &&
         by_subdivision_ == other.by_subdivision_ &&
         by_country_ == other.by_country_ && by_asn_ == other.by_asn_ &&
         by_isp_name_ == other.by_isp_name_;
}

const Classifier::RegionList* Classifier::Find(const StringIndex& index,
                                               std::string_view key) {
  if (key.empty()) return nullptr;
  auto it = index.find(key);
  return it == index.end() ? nullptr : &it->second;
}

const Classifier::RegionList* Classifier::FindAsn(uint32_t asn) const {
  if (asn == 0) return nullptr;
  auto it = by_asn_.find(asn);
  return it == by_asn_.end() ? nullptr : &it->second;
}

const Classifier::RegionList* Classifier::FindCity(
    std::string_view place, std::string_view city) const {
  // A stack key: the query path does not allocate. Longer names than any
  // region may declare (manifest_formats.h) match nothing anyway.
  char key[160];
  if (by_city_.empty() || place.empty() || city.empty() ||
      place.size() + 1 + city.size() > sizeof key) {
    return nullptr;
  }
  std::memcpy(key, place.data(), place.size());
  key[place.size()] = '/';
  std::memcpy(key + place.size() + 1, city.data(), city.size());
  return Find(by_city_, {key, place.size() + 1 + city.size()});
}

const Classifier::RegionList* Classifier::FindIspName(
    std::string_view isp) const {
  // The longest indexed name `isp` begins with (isp_sets.h), cut at UTF-8
  // character boundaries only.
  for (size_t length = isp.size(); length > 0; --length) {
    if (length < isp.size() &&
        (static_cast<uint8_t>(isp[length]) & 0xc0) == 0x80) {
      continue;
    }
    if (const RegionList* hit = Find(by_isp_name_, isp.substr(0, length))) {
      return hit;
    }
  }
  return nullptr;
}

Classifier::GeoMatch Classifier::MatchGeo(const GeoInfo& geo) const {
  enum {
    kCityInSubdivision,
    kCityInCountry,
    kSubdivision,
    kCountry,
    kAsn,
    kIspName,
    kLists
  };
  // Only regions listing one of the client's keys can match. Merging the
  // ascending lists visits each such region once, in region order, with which
  // lists named it; keeping only strictly better scores makes ties go to the
  // first region.
  const std::array<const RegionList*, kLists> lists = {
      FindCity(geo.subdivision, geo.city),
      FindCity(geo.country, geo.city),
      Find(by_subdivision_, geo.subdivision),
      Find(by_country_, geo.country),
      FindAsn(geo.asn),
      FindIspName(geo.isp)};
  std::array<size_t, kLists> pos = {};
  std::array<uint32_t, kLists>
      heads;  // each list's current entry; kNoIndex at the end
  auto advance = [&](int i) {
    heads[i] = lists[i] && pos[i] < lists[i]->size() ? (*lists[i])[pos[i]++]
                                                     : kNoIndex;
  };
  for (int i = 0; i < kLists; ++i) advance(i);
  uint32_t best = kNoIndex;
  uint8_t best_score = 0;
  while (true) {
    const uint32_t r = *std::min_element(heads.begin(), heads.end());
    if (r == kNoIndex) break;
    std::array<bool, kLists> hit{};
    for (int i = 0; i < kLists; ++i) {
      hit[i] = heads[i] == r;
      if (hit[i]) advance(i);
    }
    const bool city = hit[kCityInSubdivision] || hit[kCityInCountry];
    const bool geo_ok = !(declares_[r] & kDeclaresGeo) || city ||
                        hit[kSubdivision] || hit[kCountry];
    const bool isp_ok =
        !(declares_[r] & kDeclaresIsp) || hit[kAsn] || hit[kIspName];
    if (!geo_ok || !isp_ok) continue;
    uint8_t score = city                ? kGeoCity
                    : hit[kSubdivision] ? kGeoSubdivision
                    : hit[kCountry]     ? kGeoCountry
                                        : 0;
    if (declares_[r] & kDeclaresIsp) score += kGeoIsp;
    if (score > best_score) {
      best = r;
      best_score = score;
    }
  }
  return {best, best_score};
}

template <typename GeoStep>
Classification Classifier::ClassifyWith(const IpAddress& client,
                                        GeoStep geo_step) const {
  using Step = Classification::Step;
  Classification out;
  const PrefixTable::Result cidr = cidrs_.Query(client);
  out.scope_prefix_length = cidr.covering_depth;
  if (cidr.match) {
    const uint32_t value = cidr.match->value;
    const uint32_t region_count = static_cast<uint32_t>(declares_.size());
    if (value < region_count) {
      out.region = value;
      out.step = Step::kCidr;
    } else {
      out.geo_override = value - region_count;
      out.region = override_regions_[out.geo_override];
      out.step = Step::kOverride;
    }
    out.specificity = static_cast<uint8_t>(cidr.match->prefix_length);
    out.cidr = {Mask(client, cidr.match->prefix_length),
                cidr.match->prefix_length};
    return out;
  }
  if (has_geo_regions_) {
    const auto [match, geo_prefix_length] = geo_step();
    const int geo_scope = geo_prefix_length < 0
                              ? client.BitLength()
                              : std::min(geo_prefix_length, client.BitLength());
    out.scope_prefix_length = std::max(out.scope_prefix_length, geo_scope);
    if (match.region != kNoIndex) {
      out.region = match.region;
      out.step = Step::kGeo;
      out.specificity = match.specificity;
      return out;
    }
  }
  if (catch_all_ != kNoIndex) {
    out.region = catch_all_;
    out.step = Step::kCatchAll;
  }
  return out;
}

Classification Classifier::Classify(const IpAddress& client,
                                    const GeoInfo& geo) const {
  return ClassifyWith(client, [&] {
    return std::pair{MatchGeo(geo), geo.geo_prefix_length};
  });
}

Classification Classifier::Classify(const IpAddress& client,
                                    const GeoMatch& match,
                                    int geo_prefix_length) const {
  return ClassifyWith(client, [&] {
    return std::pair{match, geo_prefix_length};
  });
}

std::string Describe(const Classification& c, const Snapshot& snapshot,
                     const GeoInfo& geo) {
  using Step = Classification::Step;
  const std::vector<SnapshotRegion>& regions = snapshot.regions;
  switch (c.step) {
    case Step::kCidr:
      return "cidr " + FormatPrefix(c.cidr) + " of region " +
             regions[c.region].name;
    case Step::kOverride:
      return "override " + snapshot.geo_overrides[c.geo_override].name +
             ": cidr " + FormatPrefix(c.cidr) + " -> region " +
             regions[c.region].name;
    case Step::kGeo: {
      std::string why;
      const uint8_t level = c.specificity & ~kGeoIsp;
      if (level == kGeoCity) {
        // The key the region named: subdivision-qualified when it has it.
        const RegionMatch& m = regions[c.region].match;
        const std::string by_subdivision =
            std::string(geo.subdivision) + "/" + std::string(geo.city);
        why = "city " +
              (std::find(m.cities.begin(), m.cities.end(), by_subdivision) !=
                       m.cities.end()
                   ? by_subdivision
                   : std::string(geo.country) + "/" + std::string(geo.city));
      } else if (level == kGeoSubdivision) {
        why = "subdivision " + std::string(geo.subdivision);
      } else if (level == kGeoCountry) {
        why = "country " + std::string(geo.country);
      }
      if (c.specificity & kGeoIsp) {
        why += why.empty() ? "" : " + ";
        const std::optional<IspMatch> isp =
            MatchIsp(regions[c.region].match, snapshot.isp_sets, geo);
        const std::string asn = "ASN " + std::to_string(geo.asn);
        if (!isp || !isp->set) {
          why += asn;
        } else {
          why += "ISP set " + isp->set->name + " (" +
                 (isp->by_name ? "ISP " + std::string(geo.isp) : asn) + ")";
        }
      }
      return why + " -> region " + regions[c.region].name;
    }
    case Step::kCatchAll:
      return "no match; catch-all region " + regions[c.region].name;
    case Step::kNone:
      break;
  }
  return "no match; no catch-all region";
}

}  // namespace ax
