// GeoOverride end to end in the core: parsed and validated from manifests,
// built into the snapshot only when approved and not expired, carried through
// the snapshot JSON, and classifying its CIDRs' clients into its Region above
// the database and beside Regions' CIDRs — and nobody else's.
#include <gtest/gtest.h>

#include <random>

#include "ax/classify.h"
#include "ax/explain.h"
#include "ax/model_parse.h"
#include "ax/snapshot_json.h"
#include "ax/validate.h"
#include "test_world.h"

namespace ax {
namespace {

using ::ax::testing::Ip;
using ::ax::testing::RegionIndex;
using ::ax::testing::TestWorld;
using Step = Classification::Step;

constexpr int64_t kNowMs = 1'800'000'000'000;  // 2027-01-15

// Two carriers' regions by subdivision, the database's view; north also holds
// a hand-written CIDR.
TestWorld CarrierWorld() {
  TestWorld t;
  t.AddNode("gz-01", "192.0.2.1");
  t.AddNode("bj-01", "198.51.100.1");
  t.AddRegion("south-mobile", {"gz-01"}).match.subdivisions = {"CN-GD"};
  Region& north = t.AddRegion("north-mobile", {"bj-01"});
  north.match.subdivisions = {"CN-BJ"};
  north.match.cidrs = {*ParsePrefix("120.230.64.0/24")};
  t.AddDomain("www", Strategy::kRegionPriority);
  return t;
}

GeoOverride Override(std::string name, std::vector<const char*> cidrs,
                     std::string region) {
  GeoOverride o;
  o.meta.name = std::move(name);
  for (const char* c : cidrs) o.cidrs.push_back(*ParsePrefix(c));
  o.region = std::move(region);
  o.reason = "measured";
  return o;
}

// What the database says about every client here: Beijing.
GeoInfo Beijing() {
  GeoInfo geo;
  geo.country = "CN";
  geo.subdivision = "CN-BJ";
  geo.geo_prefix_length = 12;
  return geo;
}

TEST(GeoOverrideTest, OnlyApprovedUnexpiredOverridesReachTheSnapshot) {
  TestWorld t = CarrierWorld();
  t.world.geo_overrides.push_back(
      Override("active", {"120.230.0.0/16"}, "south-mobile"));
  GeoOverride proposed = Override("proposed", {"10.1.0.0/16"}, "south-mobile");
  proposed.approved = false;
  t.world.geo_overrides.push_back(proposed);
  GeoOverride expired = Override("expired", {"10.2.0.0/16"}, "south-mobile");
  expired.expires_at = kNowMs / 1000;  // inclusive: expired from then on
  t.world.geo_overrides.push_back(expired);
  GeoOverride later = Override("later", {"10.3.0.0/16"}, "south-mobile");
  later.expires_at = kNowMs / 1000 + 1;
  t.world.geo_overrides.push_back(later);

  const Snapshot s = t.Build(kNowMs);
  ASSERT_EQ(s.geo_overrides.size(), 2u);
  EXPECT_EQ(s.geo_overrides[0].name, "active");
  EXPECT_EQ(s.geo_overrides[0].region, RegionIndex(s, "south-mobile"));
  EXPECT_EQ(s.geo_overrides[0].expires_at_ms, 0);
  EXPECT_EQ(s.geo_overrides[1].name, "later");
  EXPECT_EQ(s.geo_overrides[1].expires_at_ms, kNowMs + 1000);
}

TEST(GeoOverrideTest, ClassifiesItsCidrAboveTheDatabase) {
  TestWorld t = CarrierWorld();
  t.world.geo_overrides.push_back(
      Override("gd-mobile", {"120.230.0.0/16"}, "south-mobile"));
  const Snapshot s = t.Build(kNowMs);
  const Classifier classifier(s);

  const Classification in = classifier.Classify(Ip("120.230.7.9"), Beijing());
  EXPECT_EQ(in.step, Step::kOverride);
  EXPECT_EQ(in.region, RegionIndex(s, "south-mobile"));
  EXPECT_EQ(in.geo_override, 0u);
  EXPECT_EQ(in.specificity, 16);
  EXPECT_EQ(Describe(in, s, Beijing()),
            "override gd-mobile: cidr 120.230.0.0/16 -> region south-mobile");
  // The Region's own /24 inside the /16 is longer: it still wins there, and
  // the /16's answers around it are scoped to exclude it (RFC 7871 §7.2.1).
  const Classification hand =
      classifier.Classify(Ip("120.230.64.1"), Beijing());
  EXPECT_EQ(hand.step, Step::kCidr);
  EXPECT_EQ(hand.region, RegionIndex(s, "north-mobile"));
  EXPECT_EQ(
      classifier.Classify(Ip("120.230.65.1"), Beijing()).scope_prefix_length,
      24);
  // Outside: the database decides.
  const Classification out = classifier.Classify(Ip("120.231.0.1"), Beijing());
  EXPECT_EQ(out.step, Step::kGeo);
  EXPECT_EQ(out.region, RegionIndex(s, "north-mobile"));
}

TEST(GeoOverrideTest, WinsATieWithARegionsCidr) {
  TestWorld t = CarrierWorld();
  t.world.geo_overrides.push_back(
      Override("tie", {"120.230.64.0/24"}, "south-mobile"));
  const Snapshot s = t.Build(kNowMs);
  const Classification c =
      Classifier(s).Classify(Ip("120.230.64.1"), Beijing());
  EXPECT_EQ(c.step, Step::kOverride);
  EXPECT_EQ(c.region, RegionIndex(s, "south-mobile"));
}

// The must-show: an applied override changes that prefix's answers and
// nothing else — over seeded random clients and the prefix's edges, every
// answer equals the one without the override unless the client is inside.
TEST(GeoOverrideTest, ChangesThePrefixsAnswersAndNothingElse) {
  TestWorld base = CarrierWorld();
  TestWorld with = CarrierWorld();
  with.world.geo_overrides.push_back(Override(
      "gd-mobile", {"120.230.0.0/17", "2001:db8:1::/48"}, "south-mobile"));
  const Snapshot a = base.Build(kNowMs);
  const Snapshot b = with.Build(kNowMs);
  const Classifier ca(a);
  const Classifier cb(b);
  const SnapshotDomain& da = testing::DomainNamed(a, "www");
  const SnapshotDomain& db = testing::DomainNamed(b, "www");

  std::vector<IpAddress> clients = {Ip("120.229.255.255"),
                                    Ip("120.230.0.0"),
                                    Ip("120.230.127.255"),
                                    Ip("120.230.128.0"),
                                    Ip("2001:db8:0:ffff::1"),
                                    Ip("2001:db8:1::"),
                                    Ip("2001:db8:1:ffff:ffff:ffff:ffff:ffff"),
                                    Ip("2001:db8:2::")};
  std::mt19937_64 rng(16);
  for (int i = 0; i < 20000; ++i) {
    IpAddress ip;
    ip.family = IpFamily::kV4;
    // Half near the prefix, half anywhere.
    const uint32_t v =
        i % 2 ? static_cast<uint32_t>(rng())
              : (0x78E60000u ^ (static_cast<uint32_t>(rng()) & 0x0001FFFFu));
    for (int k = 0; k < 4; ++k)
      ip.bytes[k] = static_cast<uint8_t>(v >> (24 - 8 * k));
    clients.push_back(ip);
  }
  const IpPrefix v4 = *ParsePrefix("120.230.0.0/17");
  const IpPrefix v6 = *ParsePrefix("2001:db8:1::/48");
  // North's own /24 inside the /17 is longer and keeps its clients.
  const IpPrefix hand = *ParsePrefix("120.230.64.0/24");
  int moved = 0;
  for (const IpAddress& ip : clients) {
    const bool inside =
        (v4.Contains(ip) && !hand.Contains(ip)) || v6.Contains(ip);
    const Classification before = ca.Classify(ip, Beijing());
    const Classification after = cb.Classify(ip, Beijing());
    Rng r1(7), r2(7);
    const Answer ans_a =
        Decide(a, da, before.region, ClientContext{ClientCohort(ip)},
               IpFamily::kV4, kNowMs, r1);
    const Answer ans_b =
        Decide(b, db, after.region, ClientContext{ClientCohort(ip)},
               IpFamily::kV4, kNowMs, r2);
    const auto names_a = testing::Names(a, ans_a);
    const auto names_b = testing::Names(b, ans_b);
    if (inside) {
      EXPECT_EQ(after.region, RegionIndex(b, "south-mobile")) << FormatIp(ip);
      EXPECT_EQ(names_b, std::vector<std::string>{"gz-01"}) << FormatIp(ip);
      ++moved;
    } else {
      EXPECT_EQ(b.regions[after.region].name, a.regions[before.region].name)
          << FormatIp(ip);
      EXPECT_EQ(names_a, names_b) << FormatIp(ip);
    }
  }
  EXPECT_GT(moved, 1000);
}

TEST(GeoOverrideTest, SurvivesTheSnapshotJsonWithItsEvidence) {
  TestWorld t = CarrierWorld();
  GeoOverride o = Override("gd-mobile", {"120.230.0.0/16"}, "south-mobile");
  o.expires_at = kNowMs / 1000 + 86400;
  o.evidence = GeoOverrideEvidence{.samples = 412,
                                   .best_node = "gz-01",
                                   .best_ms = 23.5,
                                   .db_region = "north-mobile",
                                   .db_node = "bj-01",
                                   .db_ms = 61,
                                   .from = kNowMs / 1000 - 3600,
                                   .to = kNowMs / 1000};
  t.world.geo_overrides.push_back(o);
  const Snapshot s = t.Build(kNowMs);
  const ParseSnapshotResult parsed = ParseSnapshot(SerializeSnapshot(s));
  ASSERT_TRUE(parsed.snapshot) << parsed.errors.front().ToString();
  EXPECT_EQ(parsed.snapshot->geo_overrides, s.geo_overrides);
  ASSERT_TRUE(parsed.snapshot->geo_overrides[0].has_evidence);
  EXPECT_EQ(parsed.snapshot->geo_overrides[0].evidence.samples, 412u);

  // Explain shows the override, its evidence and the database's region.
  ExplainRequest req;
  req.name = "www.example.test";
  req.client = Ip("120.230.1.1");
  req.geo = Beijing();
  req.now_ms = kNowMs;
  const nlohmann::json e = Explain(s, Classifier(s), req);
  const nlohmann::json& c = e["classification"];
  EXPECT_EQ(c["step"], "override");
  EXPECT_EQ(c["region"], "south-mobile");
  EXPECT_EQ(c["override"]["name"], "gd-mobile");
  EXPECT_EQ(c["override"]["databaseRegion"], "north-mobile");
  EXPECT_EQ(c["override"]["evidence"]["samples"], 412);
  EXPECT_EQ(c["override"]["evidence"]["bestNode"], "gz-01");
  EXPECT_EQ(c["override"]["expiresAt"], "2027-01-16T08:00:00Z");
}

TEST(GeoOverrideTest, SnapshotRejectsAnOverrideNamingNoRegion) {
  TestWorld t = CarrierWorld();
  t.world.geo_overrides.push_back(
      Override("gd-mobile", {"120.230.0.0/16"}, "south-mobile"));
  Snapshot s = t.Build(kNowMs);
  s.geo_overrides[0].region = 9;
  s.content_hash = ComputeContentHash(s);
  const ParseSnapshotResult parsed = ParseSnapshot(SerializeSnapshot(s));
  ASSERT_FALSE(parsed.snapshot);
  EXPECT_EQ(parsed.errors.front().path, "geoOverrides[0].region");
}

World Parse(const char* json_text, std::vector<ManifestError>& errors) {
  World world;
  ParseManifestObject(nlohmann::json::parse(json_text), "o.yaml", world,
                      errors);
  return world;
}

TEST(GeoOverrideTest, ParsesEveryField) {
  std::vector<ManifestError> errors;
  const World w = Parse(R"({
    "apiVersion": "gslb.ax.io/v1alpha1", "kind": "GeoOverride",
    "metadata": {"name": "gd-mobile"},
    "spec": {"cidrs": ["120.230.0.0/16", "2001:db8::/48"],
             "region": "south-mobile", "reason": "ticket 7",
             "expiresAt": "2027-01-01T00:00:00Z", "approved": false,
             "evidence": {"samples": 40, "bestNode": "gz-01", "bestMs": 20,
                          "databaseRegion": "north-mobile",
                          "databaseNode": "bj-01", "databaseMs": 60,
                          "from": "2026-12-01T00:00:00Z",
                          "to": "2026-12-02T00:00:00Z"}}})",
                        errors);
  ASSERT_TRUE(errors.empty()) << errors.front().ToString();
  ASSERT_EQ(w.geo_overrides.size(), 1u);
  const GeoOverride& o = w.geo_overrides[0];
  EXPECT_EQ(o.cidrs.size(), 2u);
  EXPECT_EQ(o.region, "south-mobile");
  EXPECT_EQ(o.expires_at, 1798761600);
  EXPECT_FALSE(o.approved);
  ASSERT_TRUE(o.evidence);
  EXPECT_EQ(o.evidence->db_node, "bj-01");
  EXPECT_EQ(o.evidence->to - o.evidence->from, 86400);
}

TEST(GeoOverrideTest, BadOverridesAreRejectedWithTheField) {
  std::vector<ManifestError> errors;
  Parse(R"({"apiVersion": "gslb.ax.io/v1alpha1", "kind": "GeoOverride",
            "metadata": {"name": "x"},
            "spec": {"cidrs": ["120.230.0.1/16"], "region": "r"}})",
        errors);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].field, "spec.cidrs[0]");

  TestWorld t = CarrierWorld();
  t.world.geo_overrides.push_back(Override("gone", {"10.0.0.0/8"}, "nowhere"));
  t.world.geo_overrides.push_back(
      Override("all", {"0.0.0.0/0"}, "south-mobile"));
  GeoOverride empty = Override("empty", {}, "south-mobile");
  empty.evidence = GeoOverrideEvidence{.from = 10, .to = 5};
  t.world.geo_overrides.push_back(empty);
  std::vector<std::string> got;
  for (const ManifestError& e : Validate(t.world)) {
    // (TestWorld's nodes leave their probe ports out.)
    if (e.object.starts_with("GeoOverride/")) {
      got.push_back(e.object + " " + e.field);
    }
  }
  EXPECT_EQ(got,
            (std::vector<std::string>{"GeoOverride/gone spec.region",
                                      "GeoOverride/all spec.cidrs[0]",
                                      "GeoOverride/empty spec.cidrs",
                                      "GeoOverride/empty spec.evidence.from"}));
}

}  // namespace
}  // namespace ax
