// Traffic that ramps instead of jumping: slow start of nodes that turn Up,
// spill-over of an overloaded region's clients to its next fallback region,
// and the last resort that keeps a carrier's clients on their own carrier.
// Shares are sampled over many client subnets, on injected clocks.
#include <gtest/gtest.h>

#include "ax/previous_snapshot.h"
#include "ax/snapshot_json.h"
#include "test_world.h"

namespace ax {
namespace {

using ::ax::testing::ClientNumber;
using ::ax::testing::DomainNamed;
using ::ax::testing::Names;
using ::ax::testing::RegionIndex;
using ::ax::testing::TestWorld;

constexpr int64_t kT0 = 1'000'000;  // when the tests' nodes turn Up
constexpr int kClients = 20000;     // distinct /24s per sample

// The share of `kClients` subnets whose answer (from `region`) names `node`,
// and among them, whose answer leads with it.
struct Share {
  double named = 0;
  double leads = 0;
};
Share ShareOf(const Snapshot& s, const std::string& node, int64_t now_ms,
              const std::string& region = "r", uint64_t seed = 7) {
  Rng rng(seed);
  const SnapshotDomain& d = DomainNamed(s, "www");
  int named = 0, leads = 0;
  for (int i = 0; i < kClients; ++i) {
    const Answer a = Decide(s, d, RegionIndex(s, region), ClientNumber(i),
                            IpFamily::kV4, now_ms, rng);
    const std::vector<std::string> names = Names(s, a);
    if (std::find(names.begin(), names.end(), node) != names.end()) ++named;
    if (!names.empty() && names[0] == node) ++leads;
  }
  return {named / double(kClients), leads / double(kClients)};
}

// Two equal nodes; `b` was Down in the table before `kT0` and is Up from it.
struct Recovery {
  TestWorld world;
  Snapshot before, after;
};
Recovery RecoveringB(Strategy strategy, uint32_t slow_start_seconds,
                     uint32_t max_answers = 1) {
  Recovery r;
  r.world.AddNode("a", "192.0.2.1");
  r.world.AddNode("b", "192.0.2.2");
  r.world.AddRegion("r", {"a", "b"});
  r.world.AddDomain("www", strategy, max_answers).slow_start_seconds =
      slow_start_seconds;
  r.world.status["b"].health = Health::kDown;
  r.before = r.world.Build(kT0 - 10'000);
  r.world.status["b"].health = Health::kUp;
  r.after = r.world.Build(kT0, &r.before);
  return r;
}

TEST(SlowStartTest, WeightedShareFollowsTheRamp) {
  const Recovery r = RecoveringB(Strategy::kWeightedRandom, 60);
  EXPECT_EQ(r.after.nodes[1].up_since_ms, kT0);
  // Half of the answers once ramped; on the way, the ramp's share of that.
  for (const auto& [seconds, expected] : {std::pair{0, 0.0},
                                          {15, 0.125},
                                          {30, 0.25},
                                          {45, 0.375},
                                          {60, 0.5},
                                          {120, 0.5}}) {
    EXPECT_NEAR(ShareOf(r.after, "b", kT0 + seconds * 1000).leads, expected,
                0.015)
        << seconds << " s after b turned Up";
  }
}

TEST(SlowStartTest, RankedPrimaryComesBackToAGrowingCohort) {
  const Recovery r = RecoveringB(Strategy::kFailover, 100, 2);
  // b is second in priority: recovering primary `a` would be the case that
  // floods, so make b the primary by declared order.
  TestWorld t = r.world;
  t.world.regions[0].nodes = {"b", "a"};
  t.status["b"].health = Health::kDown;
  const Snapshot before = t.Build(kT0 - 10'000);
  t.status["b"].health = Health::kUp;
  const Snapshot after = t.Build(kT0, &before);
  std::vector<bool> had(kClients);
  for (int seconds : {10, 40, 70, 99}) {
    const int64_t now = kT0 + seconds * 1000;
    const Share share = ShareOf(after, "b", now);
    // Clients outside the ramp do not see b at all: it is not demoted to the
    // second address (resolvers shuffle RRsets), it is left out.
    EXPECT_NEAR(share.named, seconds / 100.0, 0.015) << seconds;
    EXPECT_DOUBLE_EQ(share.named, share.leads);
    // Stable cohorts: raising the share only adds subnets.
    Rng rng(1);
    for (int i = 0; i < kClients; ++i) {
      const Answer a = Decide(after, after.domains[0], 0, ClientNumber(i),
                              IpFamily::kV4, now, rng);
      const bool named = Names(after, a)[0] == "b";
      EXPECT_TRUE(named || !had[i]) << "client " << i << " left the ramp";
      had[i] = named;
      ASSERT_GE(a.count, 1u);
    }
  }
  EXPECT_NEAR(ShareOf(after, "b", kT0 + 100'000).leads, 1.0, 1e-9);
}

TEST(SlowStartTest, OffByDefaultAndNothingRampsInAFirstTable) {
  const Recovery off = RecoveringB(Strategy::kWeightedRandom, 0);
  EXPECT_NEAR(ShareOf(off.after, "b", kT0).leads, 0.5, 0.015);
  TestWorld t = RecoveringB(Strategy::kWeightedRandom, 60).world;
  const Snapshot first = t.Build(kT0);  // no previous table: nobody ramps
  EXPECT_EQ(first.nodes[1].up_since_ms, 0);
  EXPECT_NEAR(ShareOf(first, "b", kT0).leads, 0.5, 0.015);
}

TEST(SlowStartTest, AJoiningNodeRampsAndTheRampCarriesOver) {
  TestWorld t;
  t.AddNode("a", "192.0.2.1");
  t.AddRegion("r", {"a"});
  t.AddDomain("www", Strategy::kWeightedRandom).slow_start_seconds = 60;
  const Snapshot v1 = t.Build(kT0 - 5000);
  t.AddNode("b", "192.0.2.2");
  t.world.regions[0].nodes.push_back("b");
  const Snapshot v2 = t.Build(kT0, &v1);
  EXPECT_NEAR(ShareOf(v2, "b", kT0 + 30'000).leads, 0.25, 0.015);
  // A later table (another change) keeps b's ramp where it was.
  const Snapshot v3 = t.Build(kT0 + 30'000, &v2);
  EXPECT_EQ(v3.nodes[1].up_since_ms, kT0);
  EXPECT_NEAR(ShareOf(v3, "b", kT0 + 30'000).leads, 0.25, 0.015);
  // Past the window, the route drops the ramp: nothing left to apply.
  const Snapshot v4 = t.Build(kT0 + 61'000, &v3);
  EXPECT_EQ(v4.nodes[1].up_since_ms, kT0);
  for (const Candidate& c : v4.routes[v4.domains[0].routes[0]].candidates)
    EXPECT_EQ(c.ramp_start_ms, 0);
}

TEST(SlowStartTest, WhenEveryCandidateRampsNobodyIsHeldBack) {
  TestWorld t;
  t.AddNode("a", "192.0.2.1");
  t.AddNode("b", "192.0.2.2");
  t.AddRegion("r", {"a", "b"});
  t.AddDomain("www", Strategy::kWeightedRandom).slow_start_seconds = 60;
  t.status["a"].health = t.status["b"].health = Health::kUnknown;
  const Snapshot starting = t.Build(kT0 - 5000);
  t.status["a"].health = t.status["b"].health = Health::kUp;
  const Snapshot up = t.Build(kT0, &starting);
  // Both ramp (a restart of a standalone server): shares as without ramps.
  EXPECT_NEAR(ShareOf(up, "a", kT0 + 1000).leads, 0.5, 0.015);
  EXPECT_NEAR(ShareOf(up, "b", kT0 + 1000).leads, 0.5, 0.015);
}

TEST(SlowStartTest, ExplainShowsTheRampAndWhetherTheClientIsHeldBack) {
  const Recovery r = RecoveringB(Strategy::kWeightedRandom, 60);
  Rng rng(3);
  DecisionTrace trace;
  int held = 0;
  for (int i = 0; i < 200; ++i) {
    trace = {};
    Decide(r.after, r.after.domains[0], 0, ClientNumber(i), IpFamily::kV4,
           kT0 + 30'000, rng, &trace);
    held += trace.held_back_count;
  }
  EXPECT_NEAR(held / 200.0, 0.5, 0.1);
  EXPECT_DOUBLE_EQ(
      RampShare(r.after.routes[0].candidates[1], 60'000, kT0 + 30'000), 0.5);
}

// Region r (a, b) overloaded to `util`; its fallback f (c) has room.
Snapshot Overloaded(double util, double fallback_util = 0.3) {
  TestWorld t;
  for (const char* n : {"a", "b", "c"}) {
    t.AddNode(n, std::string("192.0.2.") + (n[0] == 'a'   ? "1"
                                            : n[0] == 'b' ? "2"
                                                          : "3"))
        .capacity.connections = 1000;
  }
  t.status["a"].load = NodeLoad{0, util * 1000};
  t.status["b"].load = NodeLoad{0, util * 1000};
  t.status["c"].load = NodeLoad{0, fallback_util * 1000};
  t.AddRegion("r", {"a", "b"}, {"f"});
  t.AddRegion("f", {"c"});
  t.AddDomain("www", Strategy::kRegionPriority);
  return t.Build(kT0);
}

TEST(SpillOverTest, ShareFollowsTheOverload) {
  // The share of load above the knee: (u - 0.8) / u.
  for (const auto& [util, share] : {std::pair{0.8, 0.0},
                                    {0.9, 0.11},
                                    {1.0, 0.2},
                                    {1.25, 0.36},
                                    {2.0, 0.6}}) {
    const Snapshot s = Overloaded(util);
    const Route& route = s.routes[s.domains[0].routes[RegionIndex(s, "r")]];
    EXPECT_DOUBLE_EQ(route.spill_share, share) << util;
    EXPECT_NEAR(ShareOf(s, "c", kT0).leads, share, 0.015) << util;
  }
}

TEST(SpillOverTest, SpilledAnswersAreMarkedAndEveryoneReasksSoon) {
  const Snapshot s = Overloaded(1.0);
  Rng rng(1);
  int spilled = 0;
  for (int i = 0; i < 1000; ++i) {
    const Answer a = Decide(s, s.domains[0], RegionIndex(s, "r"),
                            ClientNumber(i), IpFamily::kV4, kT0 + 600'000, rng);
    EXPECT_EQ(a.ttl, s.domains[0].ttl.failover);
    EXPECT_EQ(a.ttl_reason, TtlReason::kSpill);
    EXPECT_EQ(a.spilled, Names(s, a)[0] == "c");
    if (a.spilled) {
      EXPECT_EQ(a.source, RouteSource::kFallbackRegion);
      ++spilled;
    }
  }
  EXPECT_GT(spilled, 150);
  EXPECT_LT(spilled, 250);
}

TEST(SpillOverTest, NoSpillIntoAFallbackPastTheKneeOrAwayFromAPin) {
  auto spill_route = [](const Snapshot& s) {
    return s.routes[s.domains[0].routes[RegionIndex(s, "r")]].spill_route;
  };
  EXPECT_EQ(spill_route(Overloaded(1.2, 0.9)), kNoIndex);
  EXPECT_NE(spill_route(Overloaded(1.2, 0.7)), kNoIndex);
  TestWorld t;
  for (const char* n : {"a", "c"}) {
    t.AddNode(n, n[0] == 'a' ? "192.0.2.1" : "192.0.2.3").capacity.connections =
        1000;
  }
  t.status["a"].load = NodeLoad{0, 1500};
  t.AddRegion("r", {"a"}, {"f"});
  t.AddRegion("f", {"c"});
  t.AddDomain("www", Strategy::kRegionPriority);
  t.AddRule("pin", "www", RuleAction::kPin, "a");
  EXPECT_EQ(spill_route(t.Build(kT0)), kNoIndex);
  t.world.rules.clear();
  EXPECT_NE(spill_route(t.Build(kT0)), kNoIndex);
}

TEST(SpillOverTest, RoundTripsThroughTheDocumentAndIsValidated) {
  Snapshot s = Overloaded(1.0);
  const std::string text = SerializeSnapshot(s);
  const ParseSnapshotResult back = ParseSnapshot(text);
  ASSERT_TRUE(back.snapshot)
      << back.errors[0].path << ": " << back.errors[0].message;
  EXPECT_EQ(SerializeSnapshot(*back.snapshot), text);
  const uint32_t region_route = s.domains[0].routes[RegionIndex(s, "r")];
  s.routes[region_route].spill_route = region_route;  // not FallbackRegion
  s.content_hash = ComputeContentHash(s);
  const ParseSnapshotResult bad = ParseSnapshot(SerializeSnapshot(s));
  ASSERT_FALSE(bad.snapshot);
  EXPECT_EQ(bad.errors[0].path,
            "routes[" + std::to_string(region_route) + "].spillRoute");
  EXPECT_EQ(bad.errors[0].message, "must name a FallbackRegion route");
}

// Region t (telecom, nodes down, no fallback) and nodes of both carriers
// elsewhere.
TestWorld CarrierLastResort() {
  TestWorld t;
  t.AddNode("t1", "192.0.2.1").isp = "telecom";
  t.AddNode("t2", "192.0.2.2").isp = "telecom";
  t.AddNode("u1", "192.0.2.3").isp = "unicom";
  t.AddNode("u2", "192.0.2.4").isp = "unicom";
  t.AddRegion("r", {"t1"}).isp = "telecom";
  t.AddRegion("other", {"t2", "u1", "u2"});
  t.AddDomain("www", Strategy::kRegionPriority, 4);
  t.status["t1"].health = Health::kDown;
  return t;
}

TEST(IspLastResortTest, TheClientsCarrierComesFirst) {
  TestWorld t = CarrierLastResort();
  const Snapshot s = t.Build(kT0);
  const Route& route = s.routes[s.domains[0].routes[RegionIndex(s, "r")]];
  EXPECT_EQ(route.source, RouteSource::kIspHealthy);
  Rng rng(1);
  const Answer a = Decide(s, s.domains[0], RegionIndex(s, "r"), ClientNumber(1),
                          IpFamily::kV4, kT0, rng);
  EXPECT_EQ(Names(s, a), (std::vector<std::string>{"t2"}));
  // No node of its carrier left: any healthy node.
  t.status["t2"].health = Health::kDown;
  const Snapshot s2 = t.Build(kT0);
  EXPECT_EQ(s2.routes[s2.domains[0].routes[RegionIndex(s2, "r")]].source,
            RouteSource::kAllHealthy);
  // Unclassified clients and "any" regions have no carrier to prefer.
  EXPECT_EQ(s.routes[s.domains[0].routes.back()].source,
            RouteSource::kAllHealthy);
}

}  // namespace
}  // namespace ax
