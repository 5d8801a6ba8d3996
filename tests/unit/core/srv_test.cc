// SRV answers from the pick (srv.h): which nodes a proxy is given, and the
// priority and weight each carries.
#include "ax/srv.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "test_world.h"

namespace ax {
namespace {

using ::ax::testing::DomainNamed;
using ::ax::testing::Names;
using ::ax::testing::RegionIndex;
using ::ax::testing::TestWorld;

TestWorld FourNodes(Strategy strategy, uint32_t max_answers) {
  TestWorld t;
  t.AddNode("a", "192.0.2.1", 50);
  t.AddNode("b", "192.0.2.2", 30);
  t.AddNode("c", "192.0.2.3", 20);
  t.AddNode("d", "2001:db8::4", 10);  // IPv6 only: SRV takes any family
  t.AddRegion("r", {"a", "b", "c", "d"});
  t.AddDomain("www", strategy, max_answers);
  return t;
}

Answer AskSrv(const Snapshot& s, uint64_t seed = 1,
              const ClientContext& client = {}) {
  Rng rng(seed);
  const SnapshotDomain& d = DomainNamed(s, "www");
  return DecideSrv(s, d, RegionIndex(s, "r"), client, 0, rng);
}

std::string NodeOf(const Snapshot& s, const SrvTarget& t) {
  return s.nodes[t.node].name;
}

TEST(SrvTest, RankingStrategyListsMaxAnswersBestFirstByPriority) {
  const Snapshot s = FourNodes(Strategy::kRegionPriority, 2).Build();
  const Answer answer = AskSrv(s);
  EXPECT_EQ(Names(s, answer), (std::vector<std::string>{"a", "b"}));
  const SrvTargets t = SrvTargetsOf(s, DomainNamed(s, "www"), answer);
  ASSERT_EQ(t.count, 2u);
  EXPECT_EQ(NodeOf(s, t.targets[0]), "a");
  EXPECT_EQ(t.targets[0].priority, 0);
  EXPECT_EQ(NodeOf(s, t.targets[1]), "b");
  EXPECT_EQ(t.targets[1].priority, 1);
  // 50:30 scaled so that the largest is 65535.
  EXPECT_EQ(t.targets[0].weight, 65535);
  EXPECT_EQ(t.targets[1].weight, 39321);
}

TEST(SrvTest, SpreadingStrategyListsEveryNodeAtOnePriority) {
  // maxAnswers 1 would make each A answer one draw; a proxy stands for all
  // the clients the draws spread over, whatever the seed.
  for (Strategy strategy :
       {Strategy::kWeightedRandom, Strategy::kConsistentHash}) {
    const Snapshot s = FourNodes(strategy, 1).Build();
    for (uint64_t seed : {1, 2, 3}) {
      const SrvTargets t =
          SrvTargetsOf(s, DomainNamed(s, "www"), AskSrv(s, seed));
      ASSERT_EQ(t.count, 4u) << StrategyName(strategy);
      std::map<std::string, uint16_t> weights;
      for (uint32_t i = 0; i < t.count; ++i) {
        EXPECT_EQ(t.targets[i].priority, 0);
        weights[NodeOf(s, t.targets[i])] = t.targets[i].weight;
      }
      // HAProxy's view (weight / 256 + 1) keeps 50:30:20:10.
      EXPECT_EQ(weights["a"], 65535);
      EXPECT_EQ(weights["b"], 39321);
      EXPECT_EQ(weights["c"], 26214);
      EXPECT_EQ(weights["d"], 13107);
    }
  }
}

TEST(SrvTest, ADownNodeLeavesTheAnswer) {
  TestWorld t = FourNodes(Strategy::kRegionPriority, 2);
  t.status["a"].health = Health::kDown;
  const Snapshot s = t.Build();
  EXPECT_EQ(Names(s, AskSrv(s)), (std::vector<std::string>{"b", "c"}));
}

TEST(SrvTest, ZeroWeightStaysZeroAndTinyWeightsKeepOne) {
  TestWorld t = FourNodes(Strategy::kWeightedRandom, 4);
  t.node("d").weight = 1;
  t.node("a").weight = 65535 * 4;  // d's share rounds below 1
  const Snapshot s = t.Build();
  const SrvTargets targets = SrvTargetsOf(s, DomainNamed(s, "www"), AskSrv(s));
  for (uint32_t i = 0; i < targets.count; ++i) {
    if (NodeOf(s, targets.targets[i]) == "d") {
      EXPECT_EQ(targets.targets[i].weight, 1);
    }
  }
  // A pinned-out node (Rule weight 0 is not allowed; Exclude removes it) is
  // not listed at all.
  TestWorld excluded = FourNodes(Strategy::kWeightedRandom, 4);
  excluded.AddRule("no-b", "www", RuleAction::kExclude, "b");
  const Snapshot s2 = excluded.Build();
  const std::vector<std::string> names = Names(s2, AskSrv(s2));
  EXPECT_EQ(std::count(names.begin(), names.end(), "b"), 0);
  EXPECT_EQ(names.size(), 3u);
}

TEST(SrvTest, CanaryNodeInTheCohortLeadsWithTheLargestWeight) {
  TestWorld t = FourNodes(Strategy::kRegionPriority, 2);
  t.AddNode("canary", "192.0.2.9", 5);
  t.AddCanary("www-canary", "www", "canary", 100);
  const Snapshot s = t.Build();
  const Answer answer = AskSrv(s);
  ASSERT_TRUE(answer.canary);
  const SrvTargets targets = SrvTargetsOf(s, DomainNamed(s, "www"), answer);
  ASSERT_EQ(targets.count, 2u);
  EXPECT_EQ(NodeOf(s, targets.targets[0]), "canary");
  EXPECT_EQ(targets.targets[0].priority, 0);
  EXPECT_EQ(targets.targets[0].weight, 65535);
  EXPECT_EQ(NodeOf(s, targets.targets[1]), "a");
}

TEST(SrvTest, DomainFallbackHasNoNodeTargets) {
  TestWorld t = FourNodes(Strategy::kRegionPriority, 2);
  for (const char* n : {"a", "b", "c", "d"}) {
    t.status[n].health = Health::kDown;
  }
  t.world.domains[0].fallback.cname = "origin.example.net";
  const Snapshot s = t.Build();
  const Answer answer = AskSrv(s);
  EXPECT_EQ(answer.source, RouteSource::kDomainFallback);
  EXPECT_EQ(SrvTargetsOf(s, DomainNamed(s, "www"), answer).count, 0u);
}

}  // namespace
}  // namespace ax
