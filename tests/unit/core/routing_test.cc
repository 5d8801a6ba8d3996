// Route planning as the product promises it: hysteresis, manual rules over
// canaries over automatic choice, stable canary cohorts, the fallback chain,
// anycast PoPs beside unicast nodes and the TTL per scenario.
#include <gtest/gtest.h>

#include <algorithm>
#include <utility>

#include "test_world.h"

namespace ax {
namespace {

using ::ax::testing::ClientNumber;
using ::ax::testing::DomainNamed;
using ::ax::testing::LeadCounts;
using ::ax::testing::Names;
using ::ax::testing::RegionIndex;
using ::ax::testing::TestWorld;

constexpr int64_t kT0 = 1'000'000'000;

Answer Ask(const Snapshot& s, const std::string& region, int64_t now_ms = kT0,
           ClientContext client = {}) {
  Rng rng(7);
  return Decide(s, DomainNamed(s, "www"), RegionIndex(s, region), client,
                IpFamily::kV4, now_ms, rng);
}

TestWorld LatencyPair() {
  TestWorld t;
  t.AddNode("a", "192.0.2.1");
  t.AddNode("b", "192.0.2.2");
  t.AddRegion("r", {"a", "b"});
  t.AddDomain("www", Strategy::kLatency).hysteresis_percent = 15;
  t.status["a"].latency_ms = 40;
  t.status["b"].latency_ms = 40;
  return t;
}

TEST(HysteresisTest, KeepsPrimaryUnlessChallengerBetterByMoreThanThreshold) {
  // Latency factor is (best+10)/(lat+10): with b at 40 ms, a at L scores
  // 50/(L+10). b is better by more than 15% once 50/(L+10) < 1/1.15, i.e. L
  // > 47.5 ms.
  struct Case {
    double a_ms;
    const char* lead;
    bool held;
  };
  for (const Case& c : {Case{45, "a", true}, Case{47, "a", true},
                        Case{48.5, "b", false}, Case{60, "b", false}}) {
    TestWorld t = LatencyPair();
    t.status["b"].latency_ms = 50;  // b worse at first: a is the incumbent
    const Snapshot first = t.Build(kT0);
    ASSERT_EQ(Names(first, Ask(first, "r"))[0], "a");
    t.status["a"].latency_ms = c.a_ms;
    t.status["b"].latency_ms = 40;
    const Snapshot next = t.Build(kT0 + 1000, &first);
    EXPECT_EQ(Names(next, Ask(next, "r"))[0], c.lead) << c.a_ms;
    EXPECT_EQ(next.routes[next.domains[0].routes[0]].hysteresis_held, c.held)
        << c.a_ms;
  }
}

TEST(HysteresisTest, WithoutHistoryTheBestLeads) {
  TestWorld t = LatencyPair();
  t.status["a"].latency_ms = 45;
  const Snapshot s = t.Build();
  EXPECT_EQ(Names(s, Ask(s, "r"))[0], "b");
}

TestWorld RulesWorld() {
  TestWorld t;
  t.AddNode("a", "192.0.2.1");
  t.AddNode("b", "192.0.2.2");
  t.AddNode("c", "192.0.2.3");
  t.AddRegion("r", {"a", "b", "c"});
  t.AddRegion("other", {"a", "b"});
  t.AddDomain("www", Strategy::kRegionPriority, 3);
  return t;
}

TEST(RuleTest, PinOverridesCanaryAndAutomatic) {
  TestWorld t = RulesWorld();
  t.AddCanary("can", "www", "b", 100);
  t.AddRule("pin-c", "www", RuleAction::kPin, "c").region = "r";
  const Snapshot s = t.Build();
  Answer a = Ask(s, "r");
  EXPECT_EQ(Names(s, a), (std::vector<std::string>{"c"}));
  EXPECT_FALSE(a.canary);
  // The pin is scoped to region r; elsewhere the canary takes everyone (100%).
  Answer other = Ask(s, "other");
  EXPECT_TRUE(other.canary);
  EXPECT_EQ(Names(s, other)[0], "b");
}

TEST(RuleTest, ExcludeAndWeightApply) {
  TestWorld t = RulesWorld();
  t.AddRule("no-a", "www", RuleAction::kExclude, "a");
  const Snapshot s = t.Build();
  EXPECT_EQ(Names(s, Ask(s, "r")), (std::vector<std::string>{"b", "c"}));
  const Route& route = s.routes[s.domains[0].routes[0]];
  EXPECT_EQ(route.rules, std::vector<std::string>{"no-a"});

  TestWorld w = RulesWorld();
  w.world.domains[0].strategy = Strategy::kWeightedRandom;
  w.world.domains[0].max_answers = 1;
  w.AddRule("heavy-c", "www", RuleAction::kWeight, "c").weight = 800;
  auto counts = LeadCounts(w.Build(), "www", "r", 20000, 11);
  EXPECT_NEAR(counts["c"] / 20000.0, 0.8, 0.015);
}

TEST(RuleTest, ExpiredRuleStopsApplying) {
  TestWorld t = RulesWorld();
  t.AddRule("pin-c", "www", RuleAction::kPin, "c").expires_at = kT0 / 1000 + 60;
  EXPECT_EQ(Names(t.Build(kT0), Ask(t.Build(kT0), "r")),
            (std::vector<std::string>{"c"}));
  const Snapshot later = t.Build(kT0 + 61'000);
  EXPECT_EQ(Names(later, Ask(later, "r"))[0], "a");
}

TEST(RuleTest, PinToDeadNodeIsNotHonoured) {
  TestWorld t = RulesWorld();
  t.AddRule("pin-c", "www", RuleAction::kPin, "c");
  t.status["c"].health = Health::kDown;
  const Snapshot s = t.Build();
  EXPECT_EQ(Names(s, Ask(s, "r")), (std::vector<std::string>{"a", "b"}));
}

TEST(CanaryTest, FivePercentOfClientSubnetsWithinHalfAPercent) {
  TestWorld t = RulesWorld();
  t.AddCanary("can", "www", "c", 5);
  const Snapshot s = t.Build();
  const int clients = 100000;
  int in = 0;
  for (int i = 0; i < clients; ++i)
    in += Ask(s, "r", kT0, ClientNumber(i)).canary;
  EXPECT_NEAR(in / double(clients), 0.05, 0.005);
}

TEST(CanaryTest, RaisingThePercentKeepsEveryCanaryClient) {
  TestWorld t = RulesWorld();
  Canary& canary = t.AddCanary("can", "www", "c", 5);
  const Snapshot five = t.Build();
  canary.status_percent = 20;
  const Snapshot twenty = t.Build();
  int in5 = 0, in20 = 0, left = 0;
  for (int i = 0; i < 50000; ++i) {
    const bool a = Ask(five, "r", kT0, ClientNumber(i)).canary;
    const bool b = Ask(twenty, "r", kT0, ClientNumber(i)).canary;
    in5 += a;
    in20 += b;
    left += a && !b;
  }
  EXPECT_EQ(left, 0);
  EXPECT_NEAR(in20 / 50000.0, 0.20, 0.01);
  EXPECT_GT(in20, 3 * in5);
}

TEST(CanaryTest, CanaryClientsLeadWithCanaryOthersNeverSeeIt) {
  TestWorld t = RulesWorld();
  t.AddCanary("can", "www", "c", 30);
  const Snapshot s = t.Build();
  for (int i = 0; i < 2000; ++i) {
    Answer a = Ask(s, "r", kT0, ClientNumber(i));
    auto names = Names(s, a);
    if (a.canary) {
      EXPECT_EQ(names[0], "c");
    } else {
      EXPECT_EQ(std::count(names.begin(), names.end(), "c"), 0);
    }
  }
}

TEST(CanaryTest, OnlyInListedRegions) {
  TestWorld t = RulesWorld();
  t.AddCanary("can", "www", "c", 100).regions = {"other"};
  const Snapshot s = t.Build();
  EXPECT_FALSE(Ask(s, "r").canary);
  EXPECT_TRUE(Ask(s, "other").canary);
}

TestWorld ChainWorld() {
  TestWorld t;
  t.AddNode("local", "192.0.2.1");
  t.AddNode("near", "192.0.2.2");
  t.AddNode("far", "192.0.2.3");
  t.AddRegion("home", {"local"}, {"nearby"});
  t.AddRegion("nearby", {"near"});
  t.AddRegion("away", {"far"});
  Domain& d = t.AddDomain("www", Strategy::kRegionPriority, 2);
  d.fallback.cname = "origin.example.net";
  return t;
}

TEST(FallbackTest, ChainRegionThenFallbackRegionThenAllThenCname) {
  TestWorld t = ChainWorld();
  struct Step {
    std::vector<std::string> down;
    RouteSource source;
    std::vector<std::string> answer;
  };
  const std::vector<Step> steps = {
      {{}, RouteSource::kRegion, {"local"}},
      {{"local"}, RouteSource::kFallbackRegion, {"near"}},
      {{"local", "near"}, RouteSource::kAllHealthy, {"far"}},
      {{"local", "near", "far"}, RouteSource::kDomainFallback, {}},
  };
  for (const Step& step : steps) {
    for (const char* n : {"local", "near", "far"})
      t.status[n].health = Health::kUp;
    for (const std::string& n : step.down) t.status[n].health = Health::kDown;
    const Snapshot s = t.Build();
    Answer a = Ask(s, "home");
    EXPECT_EQ(a.source, step.source) << step.down.size();
    EXPECT_EQ(Names(s, a), step.answer) << step.down.size();
  }
}

TEST(FallbackTest, FailOpenWithoutDomainFallbackStillAnswers) {
  TestWorld t = ChainWorld();
  t.world.domains[0].fallback = {};
  for (const char* n : {"local", "near", "far"})
    t.status[n].health = Health::kDown;
  t.node("far").admin_state = AdminState::kDisabled;
  const Snapshot s = t.Build();
  Answer a = Ask(s, "home");
  EXPECT_EQ(a.source, RouteSource::kFailOpen);
  // Every selected node but the disabled one, unverified: better than no
  // answer.
  EXPECT_EQ(Names(s, a), (std::vector<std::string>{"local", "near"}));
}

TEST(FallbackTest, UnclassifiedClientsGetAllHealthyNodes) {
  TestWorld t = ChainWorld();
  const Snapshot s = t.Build();
  Rng rng(1);
  Answer a = Decide(s, s.domains[0], kNoIndex, {}, IpFamily::kV4, kT0, rng);
  EXPECT_EQ(a.source, RouteSource::kAllHealthy);
  EXPECT_EQ(a.count, 2u);
}

// The chain world plus three anycast PoPs: pop-a and pop-b announce one
// address, pop-c another; the domain answers them (policy Default) outside
// the unicast region "home".
TestWorld AnycastWorld(AnycastPolicy policy) {
  TestWorld t = ChainWorld();
  for (auto [name, address] : {std::pair{"pop-a", "203.0.113.1"},
                               {"pop-b", "203.0.113.1"},
                               {"pop-c", "203.0.113.2"}}) {
    t.AddNode(name, address).meta.labels = {{"pop", "anycast"}};
  }
  Domain& d = t.world.domains[0];
  d.node_selector = {};
  d.anycast.node_selector = {{"pop", "anycast"}};
  d.anycast.policy = policy;
  if (policy == AnycastPolicy::kDefault) d.anycast.unicast_regions = {"home"};
  d.max_answers = 4;
  return t;
}

std::vector<std::string> Addresses(const Snapshot& s, const Answer& a) {
  std::vector<std::string> out;
  for (uint32_t i = 0; i < a.count; ++i) {
    for (const IpAddress& ip : s.nodes[a.nodes[i]].addresses) {
      out.push_back(FormatIp(ip));
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(AnycastTest, DefaultPolicyAnswersPopsOutsideTheUnicastRegions) {
  TestWorld t = AnycastWorld(AnycastPolicy::kDefault);
  const Snapshot s = t.Build();
  // A unicast region keeps its chain, and never gets a PoP.
  const Answer home = Ask(s, "home");
  EXPECT_EQ(home.source, RouteSource::kRegion);
  EXPECT_EQ(Names(s, home), (std::vector<std::string>{"local"}));
  // Everyone else: the PoPs, one per address set.
  for (const char* region : {"nearby", "away"}) {
    const Answer a = Ask(s, region);
    EXPECT_EQ(a.source, RouteSource::kAnycast) << region;
    EXPECT_EQ(Addresses(s, a),
              (std::vector<std::string>{"203.0.113.1", "203.0.113.2"}))
        << region;
  }
  Rng rng(1);
  const Answer unclassified =
      Decide(s, s.domains[0], kNoIndex, {}, IpFamily::kV4, kT0, rng);
  EXPECT_EQ(unclassified.source, RouteSource::kAnycast);
}

TEST(AnycastTest, APopDownLeavesItsAddressWhileAnotherAnnouncesIt) {
  TestWorld t = AnycastWorld(AnycastPolicy::kDefault);
  t.status["pop-a"].health = Health::kDown;
  Snapshot s = t.Build();
  Answer a = Ask(s, "away");
  EXPECT_EQ(Names(s, a), (std::vector<std::string>{"pop-b", "pop-c"}));
  EXPECT_EQ(Addresses(s, a),
            (std::vector<std::string>{"203.0.113.1", "203.0.113.2"}));
  // pop-c alone announces .2: down, its address leaves the answer.
  t.status["pop-c"].health = Health::kDown;
  s = t.Build();
  EXPECT_EQ(Addresses(s, Ask(s, "away")),
            (std::vector<std::string>{"203.0.113.1"}));
  // Every PoP down: the unicast chain answers.
  t.status["pop-b"].health = Health::kDown;
  s = t.Build();
  a = Ask(s, "away");
  EXPECT_EQ(a.source, RouteSource::kRegion);
  EXPECT_EQ(Names(s, a), (std::vector<std::string>{"far"}));
}

TEST(AnycastTest, FallbackPolicyAnswersPopsInsteadOfTheDomainFallback) {
  TestWorld t = AnycastWorld(AnycastPolicy::kFallback);
  Snapshot s = t.Build();
  EXPECT_EQ(Ask(s, "away").source, RouteSource::kRegion);
  for (const char* n : {"local", "near", "far"}) {
    t.status[n].health = Health::kDown;
  }
  s = t.Build();
  const Answer a = Ask(s, "home");
  EXPECT_EQ(a.source, RouteSource::kAnycastFallback);
  EXPECT_EQ(Addresses(s, a),
            (std::vector<std::string>{"203.0.113.1", "203.0.113.2"}));
  // No PoP either: the CNAME.
  for (const char* n : {"pop-a", "pop-b", "pop-c"}) {
    t.status[n].health = Health::kDown;
  }
  s = t.Build();
  EXPECT_EQ(Ask(s, "home").source, RouteSource::kDomainFallback);
}

TEST(TtlTest, PerScenario) {
  TestWorld t = ChainWorld();
  Domain& d = t.world.domains[0];
  d.ttl = {300, 30, 90};
  const Snapshot steady = t.Build(kT0);
  Answer a = Ask(steady, "home", kT0);
  EXPECT_EQ(a.ttl, 300u);
  EXPECT_EQ(a.ttl_reason, TtlReason::kSteady);

  // local dies: the route changes because of health -> failover TTL for the
  // window.
  t.status["local"].health = Health::kDown;
  const Snapshot failed = t.Build(kT0 + 10'000, &steady);
  a = Ask(failed, "home", kT0 + 20'000);
  EXPECT_EQ(a.ttl, 30u);
  EXPECT_EQ(a.ttl_reason, TtlReason::kFailover);
  // The window is carried into later snapshots and ends after 5 minutes.
  const Snapshot later = t.Build(kT0 + 60'000, &failed);
  EXPECT_EQ(Ask(later, "home", kT0 + 60'000).ttl, 30u);
  EXPECT_EQ(Ask(later, "home", kT0 + 10'000 + 300'001).ttl, 300u);
  // A regional change that is not health-driven (an edit) keeps the steady TTL.
  const Snapshot edited = t.Build(kT0 + 400'000, &later);
  EXPECT_EQ(Ask(edited, "home", kT0 + 400'000).ttl_reason, TtlReason::kSteady);

  // Domain fallback (CNAME): failover TTL, reason fallback.
  for (const char* n : {"near", "far"}) t.status[n].health = Health::kDown;
  a = Ask(t.Build(kT0), "home", kT0);
  EXPECT_EQ(a.ttl, 30u);
  EXPECT_EQ(a.ttl_reason, TtlReason::kFallback);

  // A canary on the route: canary TTL for both sides of the split.
  TestWorld c = ChainWorld();
  c.world.domains[0].ttl = {300, 30, 90};
  c.world.regions[0].nodes.push_back("near");
  c.AddCanary("can", "www", "near", 50);
  const Snapshot canary = c.Build(kT0);
  for (int i = 0; i < 20; ++i) {
    a = Ask(canary, "home", kT0, ClientNumber(i));
    EXPECT_EQ(a.ttl, 90u);
    EXPECT_EQ(a.ttl_reason, TtlReason::kCanary);
  }
}

TEST(RouteDedupTest, IdenticalRoutesAreShared) {
  TestWorld t = RulesWorld();
  t.AddDomain("api", Strategy::kRegionPriority, 3);
  const Snapshot s = t.Build();
  EXPECT_EQ(DomainNamed(s, "www").routes, DomainNamed(s, "api").routes);
  EXPECT_EQ(s.routes.size(), 3u);  // r, other, unclassified
}

}  // namespace
}  // namespace ax
