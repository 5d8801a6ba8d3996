// The strategies and scoring penalties as the product promises them: what each
// strategy answers, that load is a penalty and never a veto, and who leaves the
// candidate set.
#include <gtest/gtest.h>

#include <cmath>

#include "ax/score.h"
#include "test_world.h"

namespace ax {
namespace {

using ::ax::testing::DomainNamed;
using ::ax::testing::LeadCounts;
using ::ax::testing::Names;
using ::ax::testing::RegionIndex;
using ::ax::testing::TestWorld;

TestWorld ThreeNodes(Strategy strategy, uint32_t max_answers = 1) {
  TestWorld t;
  t.AddNode("a", "192.0.2.1", 50);
  t.AddNode("b", "192.0.2.2", 30);
  t.AddNode("c", "192.0.2.3", 20);
  t.AddRegion("r", {"a", "b", "c"});
  t.AddDomain("www", strategy, max_answers);
  return t;
}

Answer Ask(const Snapshot& s, const std::string& region = "r",
           uint64_t seed = 1) {
  Rng rng(seed);
  return Decide(s, DomainNamed(s, "www"), RegionIndex(s, region),
                ClientContext{}, IpFamily::kV4, 0, rng);
}

TEST(StrategyTest, WeightedRandomHonoursWeightsAsShares) {
  const Snapshot s = ThreeNodes(Strategy::kWeightedRandom).Build();
  const int n = 100000;
  auto counts = LeadCounts(s, "www", "r", n, 42);
  EXPECT_NEAR(counts["a"] / double(n), 0.5, 0.01);
  EXPECT_NEAR(counts["b"] / double(n), 0.3, 0.01);
  EXPECT_NEAR(counts["c"] / double(n), 0.2, 0.01);
}

TEST(StrategyTest, WeightedRandomReturnsDistinctNodes) {
  const Snapshot s = ThreeNodes(Strategy::kWeightedRandom, 3).Build();
  for (uint64_t seed = 0; seed < 50; ++seed) {
    auto names = Names(s, Ask(s, "r", seed));
    ASSERT_EQ(names.size(), 3u);
    std::sort(names.begin(), names.end());
    EXPECT_EQ(names, (std::vector<std::string>{"a", "b", "c"}));
  }
}

TEST(StrategyTest, RegionPriorityFollowsDeclaredOrder) {
  TestWorld t = ThreeNodes(Strategy::kRegionPriority, 2);
  const Snapshot s = t.Build();
  EXPECT_EQ(Names(s, Ask(s)), (std::vector<std::string>{"a", "b"}));
}

TEST(StrategyTest, RegionPriorityLatencyCorrection) {
  // A first choice 3x slower than the second loses; 1.3x slower keeps its
  // place.
  struct Case {
    double a_ms, b_ms;
    const char* lead;
  };
  for (const Case& c :
       {Case{90, 30, "b"}, Case{39, 30, "a"}, Case{30, 30, "a"}}) {
    TestWorld t = ThreeNodes(Strategy::kRegionPriority);
    t.status["a"].latency_ms = c.a_ms;
    t.status["b"].latency_ms = c.b_ms;
    t.status["c"].latency_ms = 200;
    const Snapshot s = t.Build();
    EXPECT_EQ(Names(s, Ask(s))[0], c.lead) << c.a_ms << " vs " << c.b_ms;
  }
}

TEST(StrategyTest, FailoverIgnoresLatencyAndLoad) {
  TestWorld t = ThreeNodes(Strategy::kFailover);
  t.status["a"].latency_ms = 500;
  t.status["b"].latency_ms = 1;
  const Snapshot s = t.Build();
  EXPECT_EQ(Names(s, Ask(s))[0], "a");
  t.status["a"].health = Health::kDown;
  const Snapshot s2 = t.Build();
  EXPECT_EQ(Names(s2, Ask(s2))[0], "b");
}

TEST(StrategyTest, LatencyPicksFastest) {
  TestWorld t = ThreeNodes(Strategy::kLatency, 3);
  t.status["a"].latency_ms = 80;
  t.status["b"].latency_ms = 20;
  t.status["c"].latency_ms = 40;
  const Snapshot s = t.Build();
  EXPECT_EQ(Names(s, Ask(s)), (std::vector<std::string>{"b", "c", "a"}));
}

TEST(StrategyTest, LeastConnectionsPicksLowestUtilisation) {
  TestWorld t = ThreeNodes(Strategy::kLeastConnections, 3);
  for (const char* n : {"a", "b", "c"}) t.node(n).capacity.connections = 1000;
  t.status["a"].load = NodeLoad{0, 700};
  t.status["b"].load = NodeLoad{0, 100};
  t.status["c"].load = NodeLoad{0, 400};
  const Snapshot s = t.Build();
  EXPECT_EQ(Names(s, Ask(s)), (std::vector<std::string>{"b", "c", "a"}));
}

TEST(StrategyTest, GeoClosestUsesGreatCircleDistance) {
  TestWorld t;
  t.AddNode("beijing", "192.0.2.1").location = GeoPoint{39.9, 116.4};
  t.AddNode("guangzhou", "192.0.2.2").location = GeoPoint{23.1, 113.3};
  t.AddNode("sanjose", "192.0.2.3").location = GeoPoint{37.3, -121.9};
  t.AddRegion("r", {"beijing", "guangzhou", "sanjose"});
  t.AddDomain("www", Strategy::kGeoClosest, 2);
  const Snapshot s = t.Build();
  Rng rng(1);
  ClientContext shenzhen{1, true, GeoPoint{22.5, 114.1}};
  ClientContext seattle{2, true, GeoPoint{47.6, -122.3}};
  const auto& d = DomainNamed(s, "www");
  EXPECT_EQ(Names(s, Decide(s, d, 0, shenzhen, IpFamily::kV4, 0, rng)),
            (std::vector<std::string>{"guangzhou", "beijing"}));
  EXPECT_EQ(Names(s, Decide(s, d, 0, seattle, IpFamily::kV4, 0, rng))[0],
            "sanjose");
  EXPECT_NEAR(DistanceKm({39.9, 116.4}, {23.1, 113.3}), 1890,
              20);  // Beijing-Guangzhou
}

TEST(StrategyTest, ConsistentHashIsStablePerSubnetAndSpreads) {
  TestWorld t = ThreeNodes(Strategy::kConsistentHash);
  for (Node& n : t.world.nodes) n.weight = 100;
  const Snapshot s = t.Build();
  const auto& d = DomainNamed(s, "www");
  std::map<std::string, int> counts;
  for (uint32_t i = 0; i < 3000; ++i) {
    Rng r1(i), r2(i + 99);  // the RNG must not matter
    auto c = ::ax::testing::ClientNumber(i);
    auto first = Names(s, Decide(s, d, 0, c, IpFamily::kV4, 0, r1));
    EXPECT_EQ(first, Names(s, Decide(s, d, 0, c, IpFamily::kV4, 0, r2)));
    ++counts[first[0]];
  }
  for (const char* n : {"a", "b", "c"}) EXPECT_NEAR(counts[n], 1000, 120) << n;
}

TEST(StrategyTest, ConsistentHashMovesAboutOneNthWhenANodeIsAdded) {
  TestWorld t;
  std::vector<std::string> names;
  for (int i = 0; i < 9; ++i) {
    names.push_back("n" + std::to_string(i));
    t.AddNode(names.back(), "192.0.2." + std::to_string(i + 1));
  }
  t.AddRegion("r", names);
  t.AddDomain("www", Strategy::kConsistentHash);
  const Snapshot before = t.Build();
  t.AddNode("n9", "192.0.2.10");
  t.world.regions[0].nodes.push_back("n9");
  const Snapshot after = t.Build();
  const int clients = 20000;
  int moved = 0, moved_elsewhere = 0;
  Rng rng(3);
  for (int i = 0; i < clients; ++i) {
    auto c = ::ax::testing::ClientNumber(i);
    auto x = Names(before, Decide(before, before.domains[0], 0, c,
                                  IpFamily::kV4, 0, rng))[0];
    auto y = Names(
        after, Decide(after, after.domains[0], 0, c, IpFamily::kV4, 0, rng))[0];
    if (x != y) ++moved;
    if (x != y && y != "n9") ++moved_elsewhere;
  }
  // 1/N with N=10 is 10%; allow sampling noise, and nobody moves between old
  // nodes.
  EXPECT_LE(moved, clients * 0.11);
  EXPECT_GE(moved, clients * 0.08);
  EXPECT_EQ(moved_elsewhere, 0);
}

TEST(ScoreTest, LoadPenaltyCurve) {
  EXPECT_DOUBLE_EQ(LoadFactor(-1), 1);  // unknown
  EXPECT_DOUBLE_EQ(LoadFactor(0.5), 1);
  EXPECT_DOUBLE_EQ(LoadFactor(0.8), 1);
  EXPECT_NEAR(LoadFactor(1.0), 1 / 1.8, 1e-12);
  EXPECT_NEAR(LoadFactor(1.5), 1 / 3.8, 1e-12);
  EXPECT_GT(LoadFactor(1000), 0);  // never a veto
  EXPECT_DOUBLE_EQ(Utilisation({100, 1000}, NodeLoad{50, 900}),
                   0.9);  // the worse of the two
  EXPECT_DOUBLE_EQ(Utilisation({0, 0}, NodeLoad{50, 900}),
                   -1);  // nothing declared
}

TEST(StrategyTest, OverloadedNodeGetsLessWeightedShare) {
  TestWorld t = ThreeNodes(Strategy::kWeightedRandom);
  for (Node& n : t.world.nodes) {
    n.weight = 100;
    n.capacity.bandwidth_mbps = 1000;
  }
  t.status["a"].load = NodeLoad{1500, 0};  // 150%: factor 0.26
  const Snapshot s = t.Build();
  auto counts = LeadCounts(s, "www", "r", 30000, 5);
  const double share_a = counts["a"] / 30000.0;
  EXPECT_NEAR(share_a, 0.263 / 2.263, 0.015);
  EXPECT_GT(share_a, 0.05);
}

TEST(StrategyTest, AllNodesOverCapacityStillAnswer) {
  for (Strategy strategy :
       {Strategy::kRegionPriority, Strategy::kWeightedRandom,
        Strategy::kLeastConnections, Strategy::kConsistentHash,
        Strategy::kLatency, Strategy::kGeoClosest, Strategy::kFailover}) {
    TestWorld t = ThreeNodes(strategy, 3);
    for (Node& n : t.world.nodes) n.capacity = {100, 100};
    for (const char* n : {"a", "b", "c"}) t.status[n].load = NodeLoad{400, 400};
    const Snapshot s = t.Build();
    Answer a = Ask(s);
    EXPECT_EQ(a.count, 3u) << StrategyName(strategy);
    EXPECT_EQ(a.source, RouteSource::kRegion) << StrategyName(strategy);
  }
}

TEST(StrategyTest, DeadDrainedAndDisabledNodesLeave) {
  TestWorld t = ThreeNodes(Strategy::kRegionPriority, 3);
  t.status["a"].health = Health::kDown;
  t.node("b").admin_state = AdminState::kDrain;
  const Snapshot s = t.Build();
  EXPECT_EQ(Names(s, Ask(s)), (std::vector<std::string>{"c"}));
  t.node("b").admin_state = AdminState::kDisabled;
  t.status["a"].health = Health::kUp;
  const Snapshot s2 = t.Build();
  EXPECT_EQ(Names(s2, Ask(s2)), (std::vector<std::string>{"a", "c"}));
}

TEST(StrategyTest, UnknownHealthWaitsForItsFirstVerdictUnlessTheDomainSays) {
  TestWorld t = ThreeNodes(Strategy::kRegionPriority, 3);
  t.status["a"].health = Health::kUnknown;
  const Snapshot strict = t.Build();
  EXPECT_EQ(Names(strict, Ask(strict)), (std::vector<std::string>{"b", "c"}));
  t.world.domains[0].answer_unknown = true;
  const Snapshot lenient = t.Build();
  EXPECT_EQ(Names(lenient, Ask(lenient)),
            (std::vector<std::string>{"b", "c", "a"}));
}

TEST(StrategyTest, FamilyFilterSkipsNodesWithoutThatFamily) {
  TestWorld t = ThreeNodes(Strategy::kRegionPriority, 3);
  t.node("b").addresses.push_back(*ParseIp("2001:db8::2"));
  const Snapshot s = t.Build();
  Rng rng(1);
  Answer a = Decide(s, s.domains[0], 0, {}, IpFamily::kV6, 0, rng);
  EXPECT_EQ(Names(s, a), (std::vector<std::string>{"b"}));
}

}  // namespace
}  // namespace ax
