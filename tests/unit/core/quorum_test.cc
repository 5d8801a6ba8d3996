// Multi-vantage quorum: majority, fail-open ties, stale reports, cut-off
// vantages, latency median and load freshness. `now` is always kNow.
#include "ax/quorum.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ax {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr int64_t kNow = 1'000'000;
constexpr Health kUp = Health::kUp;
constexpr Health kDown = Health::kDown;
constexpr Health kUnknown = Health::kUnknown;

NodeStatus St(Health h, int64_t changed_at_ms = 1000,
              std::optional<double> latency_ms = std::nullopt) {
  return NodeStatus{h, latency_ms, std::nullopt, changed_at_ms};
}

VantageVerdicts V(std::string name, std::map<std::string, NodeStatus> nodes,
                  int64_t observed_at_ms = kNow - 1000) {
  return VantageVerdicts{.vantage = std::move(name),
                         .identity = {},
                         .observed_at_ms = observed_at_ms,
                         .nodes = std::move(nodes)};
}

struct VoteCase {
  const char* name;
  std::vector<VantageVerdicts> reports;
  Health want;
  uint32_t up, down, unknown;
  const char* reason;
};

void PrintTo(const VoteCase& c, std::ostream* os) { *os << c.name; }

class VoteTest : public ::testing::TestWithParam<VoteCase> {};

TEST_P(VoteTest, DecidesNodeN1) {
  const VoteCase& c = GetParam();
  QuorumResult r = DecideQuorum(c.reports, kNow, QuorumPolicy{});
  ASSERT_EQ(r.nodes.count("n1"), 1u);
  const NodeVerdict& v = r.nodes.at("n1");
  EXPECT_STREQ(HealthName(v.health), HealthName(c.want));
  EXPECT_EQ(v.up_votes, c.up);
  EXPECT_EQ(v.down_votes, c.down);
  EXPECT_EQ(v.unknown_votes, c.unknown);
  EXPECT_EQ(v.reason, c.reason);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, VoteTest,
    ::testing::Values(
        VoteCase{"SingleVantageUp",
                 {V("a", {{"n1", St(kUp)}})},
                 kUp,
                 1,
                 0,
                 0,
                 "1/1 vantages up"},
        VoteCase{"SingleVantageDown",
                 {V("a", {{"n1", St(kDown)}})},
                 kDown,
                 0,
                 1,
                 0,
                 "1/1 vantages down"},
        VoteCase{"MajorityUp",
                 {V("a", {{"n1", St(kUp)}}), V("b", {{"n1", St(kUp)}}),
                  V("c", {{"n1", St(kDown)}})},
                 kUp,
                 2,
                 1,
                 0,
                 "2/3 vantages up, 1 down"},
        VoteCase{"MajorityDown",
                 {V("a", {{"n1", St(kDown)}}), V("b", {{"n1", St(kUp)}}),
                  V("c", {{"n1", St(kDown)}})},
                 kDown,
                 1,
                 2,
                 0,
                 "2/3 vantages down, 1 up"},
        VoteCase{"TieKeepsUp",
                 {V("a", {{"n1", St(kUp)}}), V("b", {{"n1", St(kDown)}})},
                 kUp,
                 1,
                 1,
                 0,
                 "1/2 vantages up, 1 down: split vote, kept up (fail-open)"},
        VoteCase{
            "UnknownVotesDoNotDecide",
            {V("a", {{"n1", St(kUnknown, 0)}}), V("b", {{"n1", St(kDown)}})},
            kDown,
            0,
            1,
            1,
            "1/2 vantages down, 1 unknown"},
        VoteCase{"OnlyUnknownVotes",
                 {V("a", {{"n1", St(kUnknown, 0)}})},
                 kUnknown,
                 0,
                 0,
                 1,
                 "no fresh up/down votes, 1 unknown"},
        VoteCase{"StaleVoteIgnored",
                 {V("a", {{"n1", St(kUp)}}),
                  V("b", {{"n1", St(kDown)}}, kNow - 30001),
                  V("c", {{"n1", St(kDown)}}, kNow - 45000)},
                 kUp,
                 1,
                 0,
                 0,
                 "1/3 vantages up (b stale: report 30001 ms old; c stale: "
                 "report 45000 ms old)"},
        VoteCase{"ExactlyMaxAgeIsFresh",
                 {V("a", {{"n1", St(kDown)}}, kNow - 30000)},
                 kDown,
                 0,
                 1,
                 0,
                 "1/1 vantages down"},
        VoteCase{"AllStaleIsUnknown",
                 {V("a", {{"n1", St(kUp)}}, 0)},
                 kUnknown,
                 0,
                 0,
                 0,
                 "no fresh up/down votes (a stale: report 1000000 ms old)"},
        VoteCase{"FutureReportCountsAsFresh",
                 {V("a", {{"n1", St(kUp)}}, kNow + 5000)},
                 kUp,
                 1,
                 0,
                 0,
                 "1/1 vantages up"}),
    [](const auto& c) { return std::string(c.param.name); });

TEST(QuorumTest, CutOffVantageIsDiscounted) {
  // C sees all three nodes down; A and B see n1 up: C is partitioned.
  std::vector<VantageVerdicts> reports = {
      V("vantage-a", {{"n1", St(kUp)}, {"n2", St(kDown)}}),
      V("vantage-b", {{"n1", St(kUp)}, {"n3", St(kDown)}}),
      V("vantage-c", {{"n1", St(kDown)}, {"n2", St(kDown)}, {"n3", St(kDown)}}),
  };
  QuorumResult r = DecideQuorum(reports, kNow, QuorumPolicy{});
  EXPECT_THAT(r.cut_off_vantages, ElementsAre("vantage-c"));
  EXPECT_THAT(r.stale_vantages, IsEmpty());

  const NodeVerdict& n1 = r.nodes.at("n1");
  EXPECT_EQ(n1.health, kUp);
  EXPECT_EQ(n1.up_votes, 2u);
  EXPECT_EQ(n1.down_votes, 0u);
  EXPECT_THAT(n1.counted, ElementsAre("vantage-a", "vantage-b"));
  EXPECT_THAT(n1.discounted, ElementsAre("vantage-c"));
  EXPECT_EQ(n1.reason,
            "2/3 vantages up (vantage-c discounted: sees all nodes down)");

  // n2 is still down as seen from A: discounting C does not revive it.
  EXPECT_EQ(r.nodes.at("n2").health, kDown);
  EXPECT_EQ(r.nodes.at("n2").down_votes, 1u);
}

TEST(QuorumTest, EverybodySeeingAllDownIsARealOutage) {
  std::vector<VantageVerdicts> reports = {
      V("a", {{"n1", St(kDown)}, {"n2", St(kDown)}}),
      V("b", {{"n1", St(kDown)}, {"n2", St(kDown)}}),
      V("c", {{"n1", St(kDown)}, {"n2", St(kDown)}}),
  };
  QuorumResult r = DecideQuorum(reports, kNow, QuorumPolicy{});
  EXPECT_THAT(r.cut_off_vantages, IsEmpty());
  for (const char* node : {"n1", "n2"}) {
    const NodeVerdict& v = r.nodes.at(node);
    EXPECT_EQ(v.health, kDown) << node;
    EXPECT_EQ(v.down_votes, 3u) << node;
    EXPECT_THAT(v.discounted, IsEmpty()) << node;
    EXPECT_EQ(v.reason, "3/3 vantages down") << node;
  }
}

TEST(QuorumTest, CutOffNeedsEnoughNodesAndAFreshWitness) {
  // One node down is just that node down, even if a peer disagrees.
  QuorumResult single =
      DecideQuorum({V("a", {{"n1", St(kUp)}}), V("b", {{"n1", St(kDown)}})},
                   kNow, QuorumPolicy{});
  EXPECT_THAT(single.cut_off_vantages, IsEmpty());

  // The only vantage seeing n1 up is stale: c's all-down view stands.
  QuorumResult stale_witness =
      DecideQuorum({V("a", {{"n1", St(kUp)}, {"n2", St(kUp)}}, kNow - 60000),
                    V("c", {{"n1", St(kDown)}, {"n2", St(kDown)}})},
                   kNow, QuorumPolicy{});
  EXPECT_THAT(stale_witness.cut_off_vantages, IsEmpty());
  EXPECT_THAT(stale_witness.stale_vantages, ElementsAre("a"));
  EXPECT_EQ(stale_witness.nodes.at("n1").health, kDown);

  // A witness must see one of *its* nodes up, not some other node.
  QuorumResult unrelated =
      DecideQuorum({V("a", {{"n9", St(kUp)}}),
                    V("c", {{"n1", St(kDown)}, {"n2", St(kDown)}})},
                   kNow, QuorumPolicy{});
  EXPECT_THAT(unrelated.cut_off_vantages, IsEmpty());

  // With min_nodes_for_cutoff = 1 a single-node all-down view is discounted.
  QuorumPolicy loose;
  loose.min_nodes_for_cutoff = 1;
  QuorumResult one = DecideQuorum(
      {V("a", {{"n1", St(kUp)}}), V("b", {{"n1", St(kDown)}})}, kNow, loose);
  EXPECT_THAT(one.cut_off_vantages, ElementsAre("b"));
  EXPECT_EQ(one.nodes.at("n1").health, kUp);
}

TEST(QuorumTest, NodeSeenOnlyByCutOffVantageIsUnknown) {
  QuorumResult r =
      DecideQuorum({V("a", {{"n1", St(kUp)}}),
                    V("c", {{"n1", St(kDown)}, {"n2", St(kDown)}})},
                   kNow, QuorumPolicy{});
  const NodeVerdict& n2 = r.nodes.at("n2");
  EXPECT_EQ(n2.health, kUnknown);
  EXPECT_THAT(n2.counted, IsEmpty());
  EXPECT_EQ(n2.reason,
            "no fresh up/down votes (c discounted: sees all nodes down)");
}

TEST(QuorumTest, LatencyIsMedianOfCountedVantages) {
  auto report = [](const char* name, std::optional<double> latency) {
    return V(name, {{"n1", St(kUp, 1000, latency)}});
  };
  QuorumResult odd = DecideQuorum(
      {report("a", 30), report("b", 10), report("c", 200)}, kNow, {});
  EXPECT_DOUBLE_EQ(*odd.nodes.at("n1").latency_ms, 30);

  QuorumResult even =
      DecideQuorum({report("a", 30), report("b", 10), report("c", 200),
                    report("d", 50), report("e", std::nullopt)},
                   kNow, {});
  EXPECT_DOUBLE_EQ(*even.nodes.at("n1").latency_ms, 40);

  QuorumResult none = DecideQuorum({report("a", std::nullopt)}, kNow, {});
  EXPECT_FALSE(none.nodes.at("n1").latency_ms);

  // A stale vantage's latency does not count.
  QuorumResult stale = DecideQuorum(
      {report("a", 30), V("b", {{"n1", St(kUp, 1000, 900)}}, 0)}, kNow, {});
  EXPECT_DOUBLE_EQ(*stale.nodes.at("n1").latency_ms, 30);
}

TEST(QuorumTest, LoadComesFromFreshestCountedVantage) {
  auto loaded = [](const char* name, double mbps, int64_t at) {
    NodeStatus s = St(kUp);
    s.load = NodeLoad{mbps, 1};
    return V(name, {{"n1", s}}, at);
  };
  QuorumResult r = DecideQuorum(
      {loaded("a", 100, kNow - 3000), loaded("b", 300, kNow - 1000),
       loaded("c", 200, kNow - 2000), V("d", {{"n1", St(kUp)}}, kNow)},
      kNow, {});
  ASSERT_TRUE(r.nodes.at("n1").load);
  EXPECT_DOUBLE_EQ(r.nodes.at("n1").load->bandwidth_mbps, 300);
}

TEST(QuorumTest, ErrorRateComesFromFreshestCountedVantageWithItsTime) {
  auto reporting = [](const char* name, double rate, int64_t at) {
    NodeStatus s = St(kUp);
    s.error_rate = rate;
    return V(name, {{"n1", s}}, at);
  };
  QuorumResult r = DecideQuorum(
      {reporting("a", 0.01, kNow - 3000), reporting("b", 0.002, kNow - 1000),
       reporting("old", 0.5, 0), V("d", {{"n1", St(kUp)}}, kNow)},
      kNow, {});
  EXPECT_EQ(r.nodes.at("n1").error_rate, 0.002);
  EXPECT_EQ(r.nodes.at("n1").error_rate_at_ms, kNow - 1000);
  EXPECT_EQ(r.ToStatusMap().at("n1").error_rate, 0.002);
  // Nobody reports one: none.
  EXPECT_FALSE(DecideQuorum({V("a", {{"n1", St(kUp)}})}, kNow, {})
                   .nodes.at("n1")
                   .error_rate);
}

TEST(QuorumTest, ChangedAtIsWhenTheDecidingVoteFlipped) {
  // Up wins 2:1, so the second-earliest Up flip formed the majority.
  QuorumResult r = DecideQuorum(
      {V("a", {{"n1", St(kUp, 500)}}), V("b", {{"n1", St(kUp, 700)}}),
       V("c", {{"n1", St(kDown, 900)}})},
      kNow, {});
  EXPECT_EQ(r.nodes.at("n1").health_changed_at_ms, 700);

  // Unanimous: the first flip already decided.
  QuorumResult all = DecideQuorum(
      {V("a", {{"n1", St(kDown, 800)}}), V("b", {{"n1", St(kDown, 600)}})},
      kNow, {});
  EXPECT_EQ(all.nodes.at("n1").health_changed_at_ms, 600);

  // Tie: both Up votes were needed to hold the node up.
  QuorumResult tie = DecideQuorum(
      {V("a", {{"n1", St(kUp, 500)}}), V("b", {{"n1", St(kUp, 800)}}),
       V("c", {{"n1", St(kDown, 100)}}), V("d", {{"n1", St(kDown, 200)}})},
      kNow, {});
  EXPECT_EQ(tie.nodes.at("n1").health_changed_at_ms, 800);
}

TEST(QuorumTest, DeterministicAndFreshestDuplicateWins) {
  std::vector<VantageVerdicts> reports = {
      V("b", {{"n2", St(kUp)}, {"n1", St(kDown)}}),
      V("a", {{"n1", St(kDown)}}, kNow - 9000),
      V("a", {{"n1", St(kUp)}}, kNow - 100),  // newer report from a
      V("z", {{"n1", St(kUp)}}, 0),
      V("y", {{"n1", St(kUp)}}, 1),
  };
  QuorumResult r = DecideQuorum(reports, kNow, {});
  EXPECT_THAT(r.stale_vantages, ElementsAre("y", "z"));
  const NodeVerdict& n1 = r.nodes.at("n1");
  EXPECT_THAT(n1.counted, ElementsAre("a", "b"));
  EXPECT_THAT(n1.stale, ElementsAre("y", "z"));
  EXPECT_EQ(n1.up_votes, 1u);
  EXPECT_EQ(n1.down_votes, 1u);

  std::vector<VantageVerdicts> reversed(reports.rbegin(), reports.rend());
  QuorumResult again = DecideQuorum(reversed, kNow, {});
  EXPECT_EQ(again.nodes.at("n1").reason, n1.reason);
  EXPECT_THAT(again.nodes.at("n1").counted, ElementsAre("a", "b"));
}

TEST(QuorumTest, ToStatusMapCarriesVerdicts) {
  NodeStatus s = St(kUp, 1234, 12.5);
  s.load = NodeLoad{10, 2};
  QuorumResult r =
      DecideQuorum({V("a", {{"n1", s}, {"n2", St(kDown, 99)}})}, kNow, {});
  StatusMap m = r.ToStatusMap();
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m.at("n1").health, kUp);
  EXPECT_EQ(m.at("n1").health_changed_at_ms, 1234);
  EXPECT_DOUBLE_EQ(*m.at("n1").latency_ms, 12.5);
  EXPECT_DOUBLE_EQ(m.at("n1").load->bandwidth_mbps, 10);
  EXPECT_EQ(m.at("n2").health, kDown);
  EXPECT_FALSE(m.at("n2").load);
}

TEST(QuorumTest, AReportFromTheFutureIsIgnoredSkewIsNot) {
  // A forged (or broken-clock) report a minute ahead would stay fresh for a
  // minute more: it does not count; 5 s of skew does.
  const QuorumResult r =
      DecideQuorum({V("forged", {{"n1", St(kDown)}}, kNow + 60'000),
                    V("skewed", {{"n1", St(kUp)}}, kNow + 5'000)},
                   kNow, {});
  EXPECT_THAT(r.future_vantages, ElementsAre("forged"));
  EXPECT_THAT(r.stale_vantages, IsEmpty());
  const NodeVerdict& v = r.nodes.at("n1");
  EXPECT_EQ(v.health, kUp);
  EXPECT_EQ(v.down_votes, 0u);
  EXPECT_THAT(v.counted, ElementsAre("skewed"));
  EXPECT_NE(v.reason.find("forged ignored: report 60000 ms ahead of now"),
            std::string::npos)
      << v.reason;
}

TEST(QuorumTest, NoReportsNoNodes) {
  QuorumResult r = DecideQuorum({}, kNow, {});
  EXPECT_THAT(r.nodes, IsEmpty());
  EXPECT_THAT(r.ToStatusMap(), IsEmpty());
}

}  // namespace
}  // namespace ax
