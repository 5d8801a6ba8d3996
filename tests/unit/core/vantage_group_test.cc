// Health and latency per vantage group (issue 14): a Region's clients are
// answered with what the vantages of their own area and ISP measure. A path
// cut seen by one ISP's vantages moves that ISP's clients only; latency
// correction ranks by the region's own vantages, not by where the DNS cluster
// is; a group without fresh, trusted vantages falls back to the global
// verdicts and says so.
#include <gtest/gtest.h>

#include "ax/explain.h"
#include "ax/labels.h"
#include "ax/quorum.h"
#include "ax/snapshot_json.h"
#include "ax/vantage.h"
#include "test_world.h"

namespace ax {
namespace {

using ::ax::testing::Ip;
using ::ax::testing::Names;
using ::ax::testing::RegionIndex;
using ::ax::testing::TestWorld;

constexpr int64_t kNow = 1'000'000'000;
constexpr Health kUp = Health::kUp;
constexpr Health kDown = Health::kDown;

NodeStatus Seen(Health health, std::optional<double> latency_ms = 10) {
  return NodeStatus{health, latency_ms, std::nullopt, 1000};
}

// A vantage of `area`/`isp`, reporting `nodes` at `observed_at_ms`.
VantageVerdicts Vantage(std::string name, std::string area, std::string isp,
                        std::map<std::string, NodeStatus> nodes,
                        int64_t observed_at_ms = kNow - 1000) {
  return {.vantage = std::move(name),
          .identity = {.area = std::move(area), .isp = std::move(isp)},
          .observed_at_ms = observed_at_ms,
          .nodes = std::move(nodes)};
}

// The plan's step: the global quorum, each region's group quorum, the build.
Snapshot Build(TestWorld& t, const std::vector<VantageVerdicts>& reports,
               const Snapshot* previous = nullptr, int64_t now_ms = kNow) {
  const QuorumResult global = DecideQuorum(reports, now_ms, {});
  t.status = global.ToStatusMap();
  t.groups = DecideGroupQuorums(t.world.regions, reports, global, now_ms, {});
  return t.Build(now_ms, previous);
}

Region& AddPlacedRegion(TestWorld& t, const std::string& name,
                        const std::string& area, const std::string& isp,
                        std::vector<std::string> nodes) {
  Region& r = t.AddRegion(name, std::move(nodes));
  r.area = area;
  r.isp = isp;
  return r;
}

std::vector<std::string> Pick(const Snapshot& s, const std::string& region) {
  Rng rng(7);
  return Names(s, Decide(s, s.domains[0], RegionIndex(s, region), {},
                         IpFamily::kV4, kNow, rng));
}

nlohmann::json ExplainRegion(const Snapshot& s, const std::string& cidr) {
  ExplainRequest req;
  req.name = "www.example.test";
  req.client = Ip(cidr);
  req.now_ms = kNow;
  return Explain(s, Classifier(s), req);
}

TEST(VantageGroupTest, ARegionsGroupIsItsSelectorOrItsAreaAndIsp) {
  Region r;
  r.area = "cn-south";
  r.isp = "unicom";
  EXPECT_EQ(VantageGroupOf(r)->name, "cn-south-unicom");
  r.isp = "";
  EXPECT_EQ(VantageGroupOf(r)->name, "cn-south-any");
  r.vantage_selector =
      LabelSelector{.match_labels = {{"tier", "edge"}, {"isp", "unicom"}}};
  EXPECT_EQ(VantageGroupOf(r)->name, "{isp=unicom,tier=edge}");
  Region unplaced;
  EXPECT_FALSE(VantageGroupOf(unplaced));

  const VantageGroup any{"cn-south-any", "cn-south", "any", std::nullopt};
  EXPECT_TRUE(InVantageGroup(any, {.area = "cn-south", .isp = "mobile"}));
  EXPECT_FALSE(InVantageGroup(any, {.area = "cn-north", .isp = "mobile"}));
  const VantageGroup unicom{"cn-south-unicom", "cn-south", "unicom",
                            std::nullopt};
  EXPECT_FALSE(InVantageGroup(unicom, {.area = "cn-south", .isp = "mobile"}));
  const VantageGroup edge = *VantageGroupOf(r);
  EXPECT_TRUE(InVantageGroup(
      edge, {.labels = {{"tier", "edge"}, {"isp", "unicom"}, {"x", "y"}}}));
  EXPECT_FALSE(InVantageGroup(edge, {.labels = {{"tier", "edge"}}}));
}

// What the *_vantage_group_node_down metrics read: Down as a group with
// vantages sees it, with the global health; nothing from a group without.
TEST(VantageGroupTest, NodesDownByGroupNamesOnlyGroupsWithVantages) {
  Snapshot s;
  s.nodes = {{.name = "bj-01", .health = Health::kUp},
             {.name = "gz-01", .health = Health::kUp}};
  s.vantage_groups = {
      {"cn-south-unicom",
       2,
       {{.node = 0, .health = Health::kUp},
        {.node = 1, .health = Health::kDown}}},
      {"cn-north-any", 0, {{.node = 0, .health = Health::kDown}}},
      {"cn-east-any", 1, {{.node = 0, .health = Health::kUnknown}}}};
  EXPECT_EQ(NodesDownByGroup(s),
            (std::map<std::pair<std::string, std::string>, Health>{
                {{"cn-south-unicom", "gz-01"}, Health::kUp}}));
}

// matchExpressions as Kubernetes reads them: NotIn and DoesNotExist hold for a
// vantage without the key; the group's name is the selector's text.
TEST(VantageGroupTest, MatchExpressionsSelectVantagesAsKubernetesDoes) {
  Region r;
  r.vantage_selector =
      LabelSelector{.match_labels = {{"area", "cn-south"}},
                    .match_expressions = {
                        {"isp", SelectorOperator::kIn, {"unicom", "mobile"}},
                        {"tier", SelectorOperator::kNotIn, {"lab"}},
                        {"site", SelectorOperator::kExists, {}},
                        {"canary", SelectorOperator::kDoesNotExist, {}}}};
  const VantageGroup g = *VantageGroupOf(r);
  EXPECT_EQ(g.name,
            "{area=cn-south,isp in (mobile,unicom),tier notin (lab),site,"
            "!canary}");
  const Labels fits = {{"area", "cn-south"}, {"isp", "mobile"}, {"site", "gz"}};
  EXPECT_TRUE(InVantageGroup(g, {.labels = fits}));
  auto with = [&](const std::string& key, const std::string& value) {
    Labels l = fits;
    l[key] = value;
    return VantageIdentity{.labels = l};
  };
  EXPECT_FALSE(InVantageGroup(g, with("isp", "telecom")));
  EXPECT_FALSE(InVantageGroup(g, with("tier", "lab")));
  EXPECT_TRUE(InVantageGroup(g, with("tier", "edge")));
  EXPECT_FALSE(InVantageGroup(g, with("canary", "yes")));
  EXPECT_FALSE(InVantageGroup(g, with("area", "cn-north")));
  Labels no_site = fits;
  no_site.erase("site");
  EXPECT_FALSE(InVantageGroup(g, {.labels = no_site}));
}

// The example: probes in a Beijing cluster see gz-01 at 35 ms and
// bj-01 at 2 ms; Guangdong's own vantages see the opposite.
TEST(VantageGroupTest, LatencyCorrectionRanksByTheRegionsOwnVantages) {
  TestWorld t;
  t.AddNode("gz-01", "192.0.2.1");
  t.AddNode("bj-01", "192.0.2.2");
  AddPlacedRegion(t, "gd-telecom", "cn-south", "telecom", {"gz-01", "bj-01"});
  AddPlacedRegion(t, "bj-unicom", "cn-north", "unicom", {"bj-01", "gz-01"});
  t.AddDomain("www", Strategy::kRegionPriority);
  std::vector<VantageVerdicts> reports = {
      Vantage("bj-a", "cn-north", "unicom",
              {{"gz-01", Seen(kUp, 35)}, {"bj-01", Seen(kUp, 2)}}),
      Vantage("bj-b", "cn-north", "unicom",
              {{"gz-01", Seen(kUp, 35)}, {"bj-01", Seen(kUp, 2)}})};
  // Without a vantage in Guangdong: the global view, measured from Beijing,
  // sends Guangdong's clients north (what Ax did before vantage groups).
  EXPECT_EQ(Pick(Build(t, reports), "gd-telecom")[0], "bj-01");

  reports.push_back(
      Vantage("gz-a", "cn-south", "telecom",
              {{"gz-01", Seen(kUp, 3)}, {"bj-01", Seen(kUp, 38)}}));
  const Snapshot s = Build(t, reports);
  EXPECT_EQ(Pick(s, "gd-telecom")[0], "gz-01");
  EXPECT_EQ(Pick(s, "bj-unicom")[0], "bj-01");
  ASSERT_EQ(s.vantage_groups.size(), 2u);
  EXPECT_EQ(s.vantage_groups[0].name, "cn-north-unicom");
  EXPECT_EQ(s.vantage_groups[0].vantages, 2u);
  EXPECT_EQ(s.vantage_groups[1].name, "cn-south-telecom");
  EXPECT_EQ(s.vantage_groups[1].vantages, 1u);
}

// Three ISPs in one province, two vantages each, two nodes.
class IspPathTest : public ::testing::Test {
 protected:
  void SetUp() override {
    t_.AddNode("gz-01", "192.0.2.1");
    t_.AddNode("gz-02", "192.0.2.2");
    for (const char* isp : {"telecom", "unicom", "mobile"}) {
      AddPlacedRegion(t_, std::string("gd-") + isp, "cn-south", isp,
                      {"gz-01", "gz-02"})
          .match.cidrs = {*ParsePrefix(Cidr(isp))};
    }
    t_.AddDomain("www", Strategy::kRegionPriority);
  }
  static std::string Cidr(const std::string& isp) {
    return isp == "telecom"  ? "10.1.0.0/16"
           : isp == "unicom" ? "10.2.0.0/16"
                             : "10.3.0.0/16";
  }
  // Every vantage sees both nodes Up, except where `seen` says otherwise
  // for its isp.
  std::vector<VantageVerdicts> Reports(
      std::map<std::string, std::map<std::string, NodeStatus>> seen = {},
      int64_t unicom_observed_at_ms = kNow - 1000) const {
    std::vector<VantageVerdicts> out;
    for (const char* isp : {"telecom", "unicom", "mobile"}) {
      std::map<std::string, NodeStatus> nodes = {{"gz-01", Seen(kUp)},
                                                 {"gz-02", Seen(kUp)}};
      for (const auto& [node, status] : seen[isp]) nodes[node] = status;
      const int64_t at =
          std::string(isp) == "unicom" ? unicom_observed_at_ms : kNow - 1000;
      for (const char* n : {"-a", "-b"}) {
        out.push_back(
            Vantage(isp + std::string(n), "cn-south", isp, nodes, at));
      }
    }
    return out;
  }

  TestWorld t_;
};

TEST_F(IspPathTest, APathCutSeenByOneIspMovesOnlyThatIspsClients) {
  const Snapshot before = Build(t_, Reports());
  for (const char* r : {"gd-telecom", "gd-unicom", "gd-mobile"}) {
    EXPECT_EQ(Pick(before, r)[0], "gz-01") << r;
  }
  const Snapshot after =
      Build(t_, Reports({{"unicom", {{"gz-01", Seen(kDown, std::nullopt)}}}}),
            &before, kNow + 1000);
  // Globally 4 of 6 vantages see gz-01 Up: it stays Up for everybody else.
  EXPECT_EQ(after.nodes[0].health, kUp);
  EXPECT_EQ(Pick(after, "gd-unicom"), std::vector<std::string>{"gz-02"});
  EXPECT_EQ(Pick(after, "gd-telecom")[0], "gz-01");
  EXPECT_EQ(Pick(after, "gd-mobile")[0], "gz-01");
  // The failover TTL opens where the path broke, nowhere else.
  const auto route = [&](const std::string& region) {
    return after.routes[after.domains[0].routes[RegionIndex(after, region)]];
  };
  EXPECT_GT(route("gd-unicom").failover_until_ms, kNow);
  EXPECT_EQ(route("gd-telecom").failover_until_ms, 0);

  const auto e = ExplainRegion(after, "10.2.0.1");
  EXPECT_EQ(e["vantageGroup"]["name"], "cn-south-unicom");
  EXPECT_EQ(e["vantageGroup"]["usingGlobal"], false);
  EXPECT_EQ(e["vantageGroup"]["differsFromGlobal"],
            nlohmann::json::array(
                {"gz-01: Down from cn-south-unicom vantages (0 up, 2 down), "
                 "Up globally"}));
  EXPECT_EQ(e["nodesDown"], nlohmann::json::array({"gz-01"}));
  EXPECT_EQ(e["candidates"][0]["measuredBy"], "cn-south-unicom");
  EXPECT_EQ(ExplainRegion(after, "10.1.0.1")["nodesDown"],
            nlohmann::json::array());
}

TEST_F(IspPathTest, UpFromTheRegionsGroupKeepsANodeThatIsDownGlobally) {
  const Snapshot s =
      Build(t_, Reports({{"telecom", {{"gz-01", Seen(kDown, std::nullopt)}}},
                         {"mobile", {{"gz-01", Seen(kDown, std::nullopt)}}}}));
  EXPECT_EQ(s.nodes[0].health, kDown);  // 4 of 6 down
  EXPECT_EQ(Pick(s, "gd-unicom")[0], "gz-01");
  EXPECT_EQ(Pick(s, "gd-telecom"), std::vector<std::string>{"gz-02"});
  EXPECT_EQ(ExplainRegion(s, "10.2.0.1")["candidates"][0]["globalHealth"],
            "Down");
}

TEST_F(IspPathTest, AGroupWithoutFreshVantagesUsesTheGlobalVerdicts) {
  // The unicom vantages' reports are stale, and they last saw gz-01 Down.
  const Snapshot s =
      Build(t_, Reports({{"unicom", {{"gz-01", Seen(kDown, std::nullopt)}}}},
                        kNow - 60'000));
  const uint32_t g = s.regions[RegionIndex(s, "gd-unicom")].vantage_group;
  ASSERT_NE(g, kNoIndex);
  EXPECT_EQ(s.vantage_groups[g].vantages, 0u);
  EXPECT_EQ(Pick(s, "gd-unicom")[0], "gz-01");
  const auto e = ExplainRegion(s, "10.2.0.1");
  EXPECT_EQ(e["vantageGroup"]["usingGlobal"], true);
  EXPECT_EQ(e["candidates"][0]["measuredBy"], "global");
}

TEST_F(IspPathTest, AGroupWhoseVantagesAreAllCutOffIsDiscounted) {
  // Both unicom vantages see every node down while the others see them up:
  // their own uplink, not the nodes. Cut off, so the region goes global.
  const Snapshot s =
      Build(t_, Reports({{"unicom",
                          {{"gz-01", Seen(kDown, std::nullopt)},
                           {"gz-02", Seen(kDown, std::nullopt)}}}}));
  const uint32_t g = s.regions[RegionIndex(s, "gd-unicom")].vantage_group;
  ASSERT_NE(g, kNoIndex);
  EXPECT_EQ(s.vantage_groups[g].vantages, 0u);
  EXPECT_EQ(Pick(s, "gd-unicom")[0], "gz-01");
}

TEST_F(IspPathTest, TheCanaryNodeMustServeAsTheRegionsVantagesSeeIt) {
  t_.AddCanary("c", "www", "gz-02", 100);
  const Snapshot s =
      Build(t_, Reports({{"unicom", {{"gz-02", Seen(kDown, std::nullopt)}}}}));
  const auto route = [&](const std::string& region) {
    return s.routes[s.domains[0].routes[RegionIndex(s, region)]];
  };
  EXPECT_NE(route("gd-telecom").canary, kNoIndex);
  EXPECT_EQ(route("gd-unicom").canary, kNoIndex);
  EXPECT_EQ(Pick(s, "gd-unicom"), std::vector<std::string>{"gz-01"});
}

TEST_F(IspPathTest, TheGroupsRoundTripThroughTheDocument) {
  const Snapshot s =
      Build(t_, Reports({{"unicom", {{"gz-01", Seen(kDown, std::nullopt)}}}}));
  auto parsed = ParseSnapshot(SerializeSnapshot(s));
  ASSERT_TRUE(parsed.snapshot) << parsed.errors.front().ToString();
  EXPECT_EQ(SerializeSnapshot(*parsed.snapshot), SerializeSnapshot(s));
  EXPECT_EQ(parsed.snapshot->vantage_groups[1].nodes,
            s.vantage_groups[1].nodes);

  Snapshot bad = s;
  bad.regions[0].vantage_group = 7;
  bad.vantage_groups[0].nodes.push_back(bad.vantage_groups[0].nodes.front());
  std::vector<std::string> errors;
  for (const SnapshotError& e : ValidateSnapshot(bad)) {
    errors.push_back(e.ToString());
  }
  EXPECT_EQ(errors, (std::vector<std::string>{
                        "regions[0].vantageGroup: vantage group index 7 out "
                        "of range (3 groups)",
                        "vantageGroups[0].nodes[2][0]: node indices must "
                        "ascend (unique)"}));
}

TEST(VantageGroupTest, ASelectorPicksVantagesByLabel) {
  TestWorld t;
  t.AddNode("gz-01", "192.0.2.1");
  t.AddNode("gz-02", "192.0.2.2");
  Region& r = AddPlacedRegion(t, "edge", "cn-south", "any", {"gz-01", "gz-02"});
  r.vantage_selector = LabelSelector{.match_labels = {{"tier", "edge"}}};
  t.AddDomain("www", Strategy::kRegionPriority);
  VantageVerdicts edge =
      Vantage("e", "", "", {{"gz-01", Seen(kDown, {})}, {"gz-02", Seen(kUp)}});
  edge.identity.labels = {{"tier", "edge"}};
  const Snapshot s = Build(
      t, {edge, Vantage("x", "cn-south", "telecom", {{"gz-01", Seen(kUp)}}),
          Vantage("y", "cn-south", "telecom", {{"gz-01", Seen(kUp)}})});
  EXPECT_EQ(s.vantage_groups.at(0).name, "{tier=edge}");
  EXPECT_EQ(Pick(s, "edge"), std::vector<std::string>{"gz-02"});
}

TEST(VantageGroupTest, NobodyInTheGroupMeansNoGroup) {
  TestWorld t;
  t.AddNode("gz-01", "192.0.2.1");
  AddPlacedRegion(t, "gd", "cn-south", "telecom", {"gz-01"});
  t.AddDomain("www", Strategy::kRegionPriority);
  const Snapshot s =
      Build(t, {Vantage("bj", "cn-north", "unicom", {{"gz-01", Seen(kUp)}})});
  EXPECT_TRUE(s.vantage_groups.empty());
  EXPECT_EQ(s.regions[0].vantage_group, kNoIndex);
}

}  // namespace
}  // namespace ax
