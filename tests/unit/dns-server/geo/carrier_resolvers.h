// Shared by the real-data geo suites: each carrier's public resolvers (what
// an authoritative server sees as the client when there is no ECS) in four
// provinces, a snapshot with one Region per (province, carrier) that names
// only the built-in ISP set — no ASN written anywhere —, and the check that
// a resolver classifies each address into its Region by that set. Test code
// only.
#pragma once

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "ax/classify.h"
#include "ax/isp_sets.h"
#include "geo/geo_resolver.h"
#include "geo_test_support.h"

namespace ax::dns::testing {

inline SnapshotRegion MakeRegion(std::string name, RegionMatch match) {
  SnapshotRegion r;
  r.name = std::move(name);
  r.match = std::move(match);
  return r;
}

// Regions "GD-telecom" ... "SC-mobile" and a catch-all "rest".
inline Snapshot CarrierSnapshot() {
  Snapshot snapshot;
  for (const char* province : {"GD", "BJ", "SH", "SC"}) {
    for (const char* isp : {"telecom", "unicom", "mobile"}) {
      snapshot.regions.push_back(MakeRegion(
          std::string(province) + "-" + isp,
          {.subdivisions = {std::string("CN-") + province}, .isps = {isp}}));
    }
  }
  snapshot.regions.push_back(MakeRegion("rest", {.catch_all = true}));
  snapshot.isp_sets = ResolveIspSets({});
  return snapshot;
}

struct CarrierResolver {
  const char* ip;
  const char* region;
};

// Among them are the carriers' provincial networks (AS4812 Shanghai Telecom,
// AS4847 Beijing Telecom, AS17621 Shanghai Unicom, AS24400 Shanghai Mobile,
// AS56048, ...), which a Region listing the backbone ASNs would miss.
inline const std::vector<CarrierResolver>& CarrierResolvers() {
  static const std::vector<CarrierResolver> cases = {
      {"202.96.128.86", "GD-telecom"},   // Guangdong Telecom DNS, AS4134
      {"221.5.88.88", "GD-unicom"},      // Guangdong Unicom DNS, AS17816
      {"211.136.192.6", "GD-mobile"},    // Guangdong Mobile DNS, AS56040
      {"219.141.136.10", "BJ-telecom"},  // Beijing Telecom DNS, AS4847
      {"202.106.0.20", "BJ-unicom"},     // Beijing Unicom DNS, AS4808
      {"221.130.33.52", "BJ-mobile"},    // Beijing Mobile DNS, AS56048
      {"202.96.209.133", "SH-telecom"},  // Shanghai Telecom DNS, AS4812
      {"210.22.70.3", "SH-unicom"},      // Shanghai Unicom DNS, AS17621
      {"211.136.112.50", "SH-mobile"},   // Shanghai Mobile DNS, AS24400
      {"61.139.2.69", "SC-telecom"},     // Sichuan Telecom DNS, AS4134
      {"119.6.6.6", "SC-unicom"},        // Sichuan Unicom DNS, AS4837
      {"183.221.120.1", "SC-mobile"},    // Chengdu, China Mobile AS9808
  };
  return cases;
}

// Every carrier resolver lands in its Region through `resolver`, and the
// explanation names the ISP set and what matched: `matched_by` is "ASN " or
// "ISP " (the database's carrier name).
inline void ExpectCarriersClassifyByIspSet(const GeoResolver& resolver,
                                           const std::string& matched_by) {
  const Snapshot snapshot = CarrierSnapshot();
  const Classifier classifier(snapshot);
  for (const CarrierResolver& c : CarrierResolvers()) {
    SCOPED_TRACE(c.ip);
    GeoInfo geo;
    ASSERT_TRUE(resolver.Lookup(A(c.ip), geo, GeoResolver::Detail::kClassify));
    const Classification result = classifier.Classify(A(c.ip), geo);
    ASSERT_NE(result.region, kNoIndex);
    const std::string why = Describe(result, snapshot, geo);
    EXPECT_EQ(snapshot.regions[result.region].name, c.region) << why;
    const std::string region = c.region;
    const std::string carrier = region.substr(region.find('-') + 1);
    EXPECT_NE(why.find("ISP set " + carrier + " (" + matched_by),
              std::string::npos)
        << why;
  }
}

// The compiled tables of `compiled` agree with the files read by `direct` on
// every field, at seeded random addresses of both families, and never claim
// a wider scope than holds: the first and last address of the claimed block
// classify alike, and the block contains the files' own network.
inline void ExpectCompiledAgreesWithDirect(const GeoResolver& direct,
                                           const GeoResolver& compiled,
                                           uint64_t seed, int samples) {
  std::mt19937_64 rng(seed);
  auto same = [](const GeoInfo& a, const GeoInfo& b) {
    return a.country == b.country && a.subdivision == b.subdivision &&
           a.city == b.city && a.asn == b.asn && a.isp == b.isp;
  };
  auto text = [](const GeoInfo& g) {
    return std::string(g.country) + "/" + std::string(g.subdivision) + "/" +
           std::string(g.city) + "/" + std::to_string(g.asn) + "/" +
           std::string(g.isp);
  };
  for (int i = 0; i < samples; ++i) {
    const IpAddress ip = RandomAddress(rng, i);
    SCOPED_TRACE(FormatIp(ip));
    GeoInfo want;
    GeoInfo got;
    ASSERT_TRUE(direct.Lookup(ip, want, GeoResolver::Detail::kClassify));
    ASSERT_TRUE(compiled.Lookup(ip, got, GeoResolver::Detail::kClassify));
    ASSERT_TRUE(same(got, want)) << text(got) << " vs " << text(want);
    // No file serves the family: direct knows no network (-1), compiled
    // holds the whole space alike (0).
    if (want.geo_prefix_length < 0) {
      ASSERT_EQ(got.geo_prefix_length, 0);
      continue;
    }
    ASSERT_LE(got.geo_prefix_length, want.geo_prefix_length);
    for (const IpAddress& edge : {Mask(ip, got.geo_prefix_length),
                                  LastAddress(ip, got.geo_prefix_length)}) {
      GeoInfo at_edge;
      ASSERT_TRUE(direct.Lookup(edge, at_edge, GeoResolver::Detail::kClassify));
      ASSERT_TRUE(same(at_edge, want))
          << FormatIp(edge) << ": " << text(at_edge) << " vs " << text(want);
    }
  }
}

}  // namespace ax::dns::testing
