// axctl diff and simulate's parts on a small world: shares sampled through
// the data plane's pick match the weights within sampling error and are the
// same clients on both sides; a served snapshot's inputs rebuild it exactly
// (vantage groups included); what-ifs move the shares the way the planner
// says and name what cannot be applied.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "ax/build_snapshot.h"
#include "ax/manifest_loader.h"
#include "axctl/traffic_shares.h"
#include "axctl/what_if.h"

namespace ax {
namespace {

using nlohmann::json;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr int64_t kNow = 1'796'014'415'000;

constexpr char kWorld[] = R"(
apiVersion: gslb.ax.io/v1alpha1
kind: Domain
metadata: {name: api}
spec: {fqdn: api.example.test, zone: example.test, strategy: WeightedRandom,
       maxAnswers: 2}
---
apiVersion: gslb.ax.io/v1alpha1
kind: Region
metadata: {name: south}
spec:
  area: cn-south
  isp: telecom
  match: {cidrs: [113.108.0.0/16]}
  nodes: [gz-01, gz-02]
  fallbackRegions: [north]
---
apiVersion: gslb.ax.io/v1alpha1
kind: Region
metadata: {name: north}
spec:
  area: cn-north
  isp: unicom
  match: {cidrs: [123.125.0.0/16]}
  nodes: [bj-01]
---
apiVersion: gslb.ax.io/v1alpha1
kind: Node
metadata: {name: gz-01}
spec:
  addresses: [192.0.2.10]
  weight: 100
  capacity: {connections: 1000}
  healthCheck: {protocol: TCP, port: 80}
---
apiVersion: gslb.ax.io/v1alpha1
kind: Node
metadata: {name: gz-02}
spec:
  addresses: [192.0.2.11]
  weight: 50
  healthCheck: {protocol: TCP, port: 80}
---
apiVersion: gslb.ax.io/v1alpha1
kind: Node
metadata: {name: bj-01}
spec: {addresses: [198.51.100.20]}
)";

World TestWorld() {
  ManifestLoadResult r = LoadManifestText(kWorld, "world.yaml");
  EXPECT_TRUE(r.ok()) << r.errors.front().ToString();
  return r.world;
}

StatusMap AllUp() {
  StatusMap s;
  for (const char* n : {"gz-01", "gz-02", "bj-01"}) {
    s[n].health = Health::kUp;
    s[n].latency_ms = 12.5;
  }
  return s;
}

Snapshot Served(const World& world, const GroupQuorums& groups = {}) {
  return BuildSnapshot(world, AllUp(), nullptr, {.now_ms = kNow, .version = 7},
                       groups);
}

const RegionShares& Of(const std::vector<RegionShares>& shares,
                       const std::string& region) {
  for (const RegionShares& s : shares) {
    if (s.region == region) return s;
  }
  ADD_FAILURE() << "no region " << region;
  return shares.front();
}

TEST(TrafficShares, FollowWeightsWithinSamplingError) {
  const Snapshot s = Served(TestWorld());
  const auto shares =
      SampleShares(s, {.clients_per_region = 4000, .now_ms = kNow});
  ASSERT_EQ(shares.size(), 3u);  // south, north, the unclassified
  const RegionShares& south = Of(shares, "south");
  EXPECT_EQ(south.clients, 4000u);
  // Weights 100:50: two thirds lead with gz-01 (sd of the estimate 0.0075).
  EXPECT_NEAR(south.lead.at("gz-01") / 4000.0, 2.0 / 3, 0.03);
  EXPECT_EQ(south.lead.at("gz-01") + south.lead.at("gz-02"), 4000u);
  EXPECT_EQ(south.steps.at("Region"), 4000u);
  EXPECT_EQ(Of(shares, "north").lead.at("bj-01"), 4000u);
  EXPECT_EQ(Of(shares, kUnclassified).steps.count("AllHealthy"), 1u);
}

TEST(TrafficShares, SameSeedSameClientsAndUnchangedPairsCompareEqual) {
  const Snapshot s = Served(TestWorld());
  const SampleOptions o{.clients_per_region = 500, .seed = 9, .now_ms = kNow};
  const auto a = SampleShares(s, o);
  const auto b = SampleShares(s, o);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].lead, b[i].lead);
  const json model = CompareShares(a, b, 500, 0.005);
  for (const json& r : model.at("regions")) EXPECT_FALSE(r.at("changed"));
  EXPECT_THAT(SharesText(model, false),
              HasSubstr("0 of 3 (domain, region) pairs changed"));
  EXPECT_THAT(SharesText(model, true), HasSubstr("node gz-01"));
}

TEST(WhatIf, InputsOfTheServedSnapshotRebuildItExactly) {
  const World world = TestWorld();
  // The south group's one vantage sees gz-02 Down while the global view
  // (every vantage) has it Up.
  VantageVerdicts v{"probe-gz", {"cn-south", "telecom", {}}, kNow - 1000, {}};
  v.nodes["gz-01"].health = Health::kUp;
  v.nodes["gz-02"].health = Health::kDown;
  const QuorumResult global = DecideQuorum({v}, kNow, {});
  const GroupQuorums groups =
      DecideGroupQuorums(world.regions, {v}, global, kNow, {});
  const Snapshot served = Served(world, groups);
  ASSERT_EQ(served.vantage_groups.size(), 1u);
  const Snapshot rebuilt =
      Rebuild(world, InputsOfSnapshot(served, world), served, kNow + 1000);
  EXPECT_EQ(rebuilt.version, 8u);
  EXPECT_EQ(rebuilt.content_hash, served.content_hash);
}

TEST(WhatIf, DownEverywhereSendsTheRegionToItsFallback) {
  World world = TestWorld();
  const Snapshot served = Served(world);
  BuildInputs in = InputsOfSnapshot(served, world);
  WhatIf w;
  std::string error;
  for (const char* node : {"gz-01", "gz-02"}) {
    w.health.push_back(*ParseHealthOverride(node, Health::kDown, error));
  }
  ASSERT_THAT(ApplyWhatIf(w, world, in), ElementsAre());
  const Snapshot after = Rebuild(world, in, served, kNow);
  const SampleOptions o{.clients_per_region = 200, .now_ms = kNow};
  const json model = CompareShares(SampleShares(served, o),
                                   SampleShares(after, o), 200, 0.005);
  // Regions come in the snapshot's order: by name.
  const json& north = model.at("regions").at(0);
  const json& south = model.at("regions").at(1);
  ASSERT_EQ(south.at("region"), "south");
  EXPECT_TRUE(south.at("changed"));
  EXPECT_EQ(south.at("nodes").at("bj-01").at("after"), 1.0);
  EXPECT_EQ(south.at("steps").at("FallbackRegion north").at("after"), 1.0);
  EXPECT_EQ(south.at("steps").at("Region").at("after"), 0.0);
  EXPECT_EQ(south.at("answersChanged"), 1.0);
  EXPECT_FALSE(north.at("changed"));
  EXPECT_EQ(north.at("answersChanged"), 0.0);
}

TEST(WhatIf, DownForOneGroupOnlyMovesThatGroupsRegions) {
  World world = TestWorld();
  VantageVerdicts v{"probe-gz", {"cn-south", "telecom", {}}, kNow - 1000, {}};
  v.nodes["gz-01"].health = Health::kUp;
  const QuorumResult global = DecideQuorum({v}, kNow, {});
  const Snapshot served =
      Served(world, DecideGroupQuorums(world.regions, {v}, global, kNow, {}));
  BuildInputs in = InputsOfSnapshot(served, world);
  WhatIf w;
  std::string error;
  w.health.push_back(
      *ParseHealthOverride("gz-01@cn-south-telecom", Health::kDown, error));
  ASSERT_THAT(ApplyWhatIf(w, world, in), ElementsAre());
  EXPECT_EQ(in.status.at("gz-01").health, Health::kUp);  // globally
  const Snapshot after = Rebuild(world, in, served, kNow);
  const auto shares = SampleShares(after, {.clients_per_region = 300});
  EXPECT_EQ(Of(shares, "south").lead.count("gz-01"), 0u);
  // The unclassified clients use the global verdicts: gz-01 still answers.
  EXPECT_GT(Of(shares, kUnclassified).lead.at("gz-01"), 0u);
}

TEST(WhatIf, LoadPastTheKneeSpillsAndAManifestJoins) {
  World world = TestWorld();
  const Snapshot served = Served(world);
  BuildInputs in = InputsOfSnapshot(served, world);
  WhatIf w;
  std::string error;
  ASSERT_TRUE(ParseLoadOverride("gz-01=150", w, error)) << error;
  ManifestLoadResult rule = LoadManifestText(R"(
apiVersion: gslb.ax.io/v1alpha1
kind: Rule
metadata: {name: pin-north}
spec: {domain: api, action: Pin, node: gz-02, match: {region: north}}
)",
                                             "rule.yaml");
  w.objects = rule.world;
  ASSERT_THAT(ApplyWhatIf(w, world, in), ElementsAre());
  EXPECT_EQ(world.rules.size(), 1u);
  const Snapshot after = Rebuild(world, in, served, kNow);
  const auto shares = SampleShares(after, {.clients_per_region = 2000});
  const RegionShares& south = Of(shares, "south");
  EXPECT_GT(south.steps.at("FallbackRegion north (spilled)"), 200u);
  EXPECT_EQ(Of(shares, "north").lead.at("gz-02"), 2000u);
}

TEST(WhatIf, SaysWhatCannotBeApplied) {
  World world = TestWorld();
  BuildInputs in = InputsOfSnapshot(Served(world), world);
  WhatIf w;
  std::string error;
  w.health.push_back(*ParseHealthOverride("gz-09", Health::kDown, error));
  w.health.push_back(*ParseHealthOverride("bj-01", Health::kDown, error));
  w.health.push_back(
      *ParseHealthOverride("gz-01@nowhere", Health::kDown, error));
  ASSERT_TRUE(ParseLoadOverride("gz-02=90", w, error));
  EXPECT_THAT(
      ApplyWhatIf(w, world, in),
      ElementsAre("no Node named gz-09", HasSubstr("bj-01 has no healthCheck"),
                  HasSubstr("no vantage group nowhere measures"),
                  HasSubstr("gz-02 declares no capacity")));
  EXPECT_FALSE(ParseHealthOverride("gz-01@", Health::kDown, error));
  EXPECT_THAT(error, HasSubstr("want NODE or NODE@VANTAGE-GROUP"));
  EXPECT_FALSE(ParseLoadOverride("gz-01=x", w, error));
  EXPECT_FALSE(ParseLoadOverride("=50", w, error));
  EXPECT_FALSE(ParseLoadOverride("gz-01=2000", w, error));
  EXPECT_THAT(error, HasSubstr("NODE=PERCENT"));
}

}  // namespace
}  // namespace ax
