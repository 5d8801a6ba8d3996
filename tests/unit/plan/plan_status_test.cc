// ComputePlan's status and Event decisions: quorum votes in Node and
// ProbeReport status, invalid objects left out but reported, Rule expiry at
// exactly expiresAt, and conditions keeping lastTransitionTime.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ax/controller/plan.h"
#include "ax/rfc3339.h"
#include "ax/route_table_configmap.h"
#include "fake_cluster.h"

namespace ax::controller {
namespace {

using ::ax::testing::ConditionOf;
using ::ax::testing::EventLines;
using ::ax::testing::FakeCluster;
using ::ax::testing::kT0;
using ::ax::testing::NodeResult;
using ::ax::testing::ReportObject;
using ::ax::testing::SmallCluster;
using ::ax::testing::UpdatedObjects;
using nlohmann::json;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::IsSupersetOf;
using ::testing::Not;

json Report(const std::string& vantage, int64_t observed_at_ms,
            Health gz02 = Health::kUp, Health others = Health::kUp) {
  return ReportObject(vantage, observed_at_ms,
                      {NodeResult("bj-01", others, 5, kT0 - 600'000),
                       NodeResult("gz-01", others, 7, kT0 - 600'000),
                       NodeResult("gz-02", gz02, 9, kT0 - 300'000)});
}

// Probes' heartbeats re-stamp unchanged reports every few seconds: no Node or
// Region status may change for that, or every heartbeat would rewrite every
// Node (1,000 PUTs a beat at scale).
TEST(PlanStatus, HeartbeatsOfUnchangedReportsRewriteNoStatus) {
  FakeCluster c = SmallCluster();
  c.ReplaceReports(
      {Report("vantage-a", kT0 - 500), Report("vantage-b", kT0 - 500)});
  c.Step(kT0);
  for (int beat = 1; beat <= 3; ++beat) {
    const int64_t t = kT0 + beat * 10'000;
    c.ReplaceReports(
        {Report("vantage-a", t - 500), Report("vantage-b", t - 500)});
    const Plan plan = c.Step(t);
    EXPECT_THAT(UpdatedObjects(plan), IsEmpty()) << "beat " << beat;
    EXPECT_FALSE(plan.route_table) << "beat " << beat;
  }
}

// Four vantages: a and b count, c sees everything Down while they do not (cut
// off), d's report is a minute old (stale). Node status shows each vote.
TEST(PlanStatus, QuorumVotesShowInNodeAndProbeReportStatus) {
  FakeCluster c = SmallCluster();
  c.state.probe_reports = {
      Report("vantage-a", kT0 - 1000), Report("vantage-b", kT0 - 2000),
      Report("vantage-c", kT0 - 1000, Health::kDown, Health::kDown),
      Report("vantage-d", kT0 - 60'000)};
  c.Step(kT0);

  const json& node = c.Status("Node", "gz-01");
  EXPECT_EQ(node["health"], "Up");
  EXPECT_EQ(node["latencyMs"], 7);
  EXPECT_EQ(node["loadPercent"], 10);  // 1000 of 10000 connections
  EXPECT_EQ(node["healthChangedAt"], FormatRfc3339Ms(kT0 - 600'000));
  EXPECT_EQ(node["vantages"], json::parse(R"([
    {"vantage":"vantage-a","health":"Up","vote":"Counted","latencyMs":7,
     "observedAt":")" + FormatRfc3339Ms(kT0 - 1000) +
                                          R"("},
    {"vantage":"vantage-b","health":"Up","vote":"Counted","latencyMs":7,
     "observedAt":")" + FormatRfc3339Ms(kT0 - 2000) +
                                          R"("},
    {"vantage":"vantage-c","health":"Down","vote":"Discounted",
     "observedAt":")" + FormatRfc3339Ms(kT0 - 1000) +
                                          R"("},
    {"vantage":"vantage-d","health":"Up","vote":"Stale","latencyMs":7,
     "observedAt":")" + FormatRfc3339Ms(kT0 - 60'000) +
                                          R"("}])"));
  const json ready = ConditionOf(node, "Ready");
  EXPECT_EQ(ready["status"], "True");
  EXPECT_EQ(ready["reason"], "Up");
  EXPECT_EQ(ready["message"],
            "2 up, 0 down of 2 counted vantages (stale: vantage-d; cut off: "
            "vantage-c)");

  const json& cut = c.Status("ProbeReport", "vantage-c");
  EXPECT_EQ(cut["stale"], false);
  EXPECT_EQ(ConditionOf(cut, "Ready")["reason"], "CutOff");
  const json& stale = c.Status("ProbeReport", "vantage-d");
  EXPECT_EQ(stale["stale"], true);
  EXPECT_EQ(ConditionOf(stale, "Ready")["reason"], "Stale");
  EXPECT_EQ(
      ConditionOf(c.Status("ProbeReport", "vantage-a"), "Ready")["reason"],
      "Counted");
}

// gz-02 goes Down by majority: NodeDown, its Region counts one healthy node
// but stays Ready, so that condition keeps its lastTransitionTime; the Node's
// Ready condition moves. Back Up: NodeUp.
TEST(PlanStatus, HealthChangesKeepUnchangedConditionsTimes) {
  FakeCluster c = SmallCluster();
  c.Step(kT0);
  const json region_ready = ConditionOf(c.Status("Region", "south"), "Ready");
  EXPECT_EQ(region_ready["lastTransitionTime"], FormatRfc3339Seconds(kT0));
  EXPECT_EQ(c.Status("Region", "south")["healthyNodes"], 2);

  const int64_t t1 = kT0 + 7000;
  c.state.probe_reports = {Report("vantage-a", t1 - 500, Health::kDown),
                           Report("vantage-b", t1 - 500, Health::kDown)};
  Plan plan = c.Step(t1);
  EXPECT_THAT(EventLines(plan),
              ElementsAre("ConfigMap/ax-route-table Normal SnapshotPublished",
                          "Node/gz-02 Warning NodeDown"));
  EXPECT_EQ(plan.summary.nodes_down, 1u);
  const json& south = c.Status("Region", "south");
  EXPECT_EQ(south["healthyNodes"], 1);
  const json now_ready = ConditionOf(south, "Ready");
  EXPECT_EQ(now_ready["status"], "True");
  EXPECT_EQ(now_ready["message"], "1 of 2 nodes are Up and Active");
  EXPECT_EQ(now_ready["lastTransitionTime"], FormatRfc3339Seconds(kT0));
  const json& gz02 = c.Status("Node", "gz-02");
  EXPECT_EQ(gz02["health"], "Down");
  EXPECT_EQ(gz02["healthChangedAt"], FormatRfc3339Ms(kT0 - 300'000));
  const json node_ready = ConditionOf(gz02, "Ready");
  EXPECT_EQ(node_ready["status"], "False");
  EXPECT_EQ(node_ready["lastTransitionTime"], FormatRfc3339Seconds(t1));

  c.state.probe_reports = {Report("vantage-a", t1 + 9000),
                           Report("vantage-b", t1 + 9000)};
  plan = c.Step(t1 + 10'000);
  EXPECT_THAT(EventLines(plan), Contains("Node/gz-02 Normal NodeUp"));
}

// Latency wobble alone does not rewrite Node status; a big move does.
TEST(PlanStatus, MeasurementsWithinToleranceWriteNothing) {
  FakeCluster c = SmallCluster();
  c.Step(kT0);
  auto with_latency = [](double ms, int64_t at) {
    std::vector<json> out;
    for (const char* v : {"vantage-a", "vantage-b"}) {
      out.push_back(
          ReportObject(v, at,
                       {NodeResult("bj-01", Health::kUp, 5, kT0 - 600'000),
                        NodeResult("gz-01", Health::kUp, ms, kT0 - 600'000),
                        NodeResult("gz-02", Health::kUp, 5, kT0 - 600'000)}));
    }
    return out;
  };
  c.ReplaceReports(with_latency(5.4, kT0 + 4000));
  Plan plan = c.Step(kT0 + 5000);
  EXPECT_THAT(UpdatedObjects(plan), IsEmpty());
  EXPECT_EQ(c.Status("Node", "gz-01")["latencyMs"], 5);
  c.ReplaceReports(with_latency(50, kT0 + 9000));
  plan = c.Step(kT0 + 10'000);
  EXPECT_THAT(UpdatedObjects(plan), ElementsAre("Node/gz-01"));
  EXPECT_EQ(c.Status("Node", "gz-01")["latencyMs"], 50);
}

// A Rule naming a Node that does not exist, a Node with a bad address and a
// Region listing that Node are left out and reported; the rest is published.
TEST(PlanStatus, InvalidObjectsAreReportedAndTheRestIsPlanned) {
  FakeCluster c = SmallCluster();
  c.state.rules.push_back(
      testing::RuleObject("pin-nope", "www", "Pin", "nope"));
  c.state.nodes.push_back(testing::NodeObject("broken", "999.1.1.1"));
  c.state.regions.push_back(testing::RegionObject("west", {"broken"}));
  const Plan plan = c.Step(kT0);
  EXPECT_EQ(plan.summary.outcome, PublishOutcome::kPublished);
  EXPECT_EQ(plan.summary.invalid_objects, 3u);
  ASSERT_EQ(plan.invalid_objects.size(), 3u);
  EXPECT_EQ(plan.invalid_objects.at("Region/west").front().ToString(),
            "Region/west: spec.nodes[0]: Node \"broken\" is not defined (it "
            "exists but is invalid, so it is left out)");
  EXPECT_THAT(plan.invalid_objects.at("Node/broken").front().ToString(),
              HasSubstr("Node/broken: spec.addresses[0]: "));
  EXPECT_THAT(EventLines(plan),
              IsSupersetOf({"Node/broken Warning InvalidSpec",
                            "Region/west Warning InvalidSpec",
                            "Rule/pin-nope Warning InvalidSpec"}));

  const Snapshot s = *ParseRouteTableConfigMap(*c.state.route_table).snapshot;
  EXPECT_EQ(s.nodes.size(), 3u);
  EXPECT_EQ(s.regions.size(), 2u);
  const json& rule = c.Status("Rule", "pin-nope");
  EXPECT_EQ(rule["active"], false);
  const json ready = ConditionOf(rule, "Ready");
  EXPECT_EQ(ready["reason"], "InvalidSpec");
  EXPECT_EQ(ready["message"],
            "spec.node: Node \"nope\" is not defined (left out of the route "
            "table)");
  EXPECT_EQ(c.Status("Region", "west")["ready"], false);
  EXPECT_EQ(c.Status("Domain", "www")["ready"], true);

  // Reported once.
  EXPECT_THAT(c.Plan(kT0 + 1000).events, IsEmpty());
}

// An IspSet says what it resolved to and who matches on it; a bad one is left
// out, and a Region matching on it with it, each saying why; the snapshot
// carries only the sets a Region names.
TEST(PlanStatus, IspSetsReportWhatTheyResolvedTo) {
  FakeCluster c = SmallCluster();
  c.state.regions[0]["spec"]["match"] = {{"countries", {"CN"}},
                                         {"isps", {"telecom", "idc"}}};
  c.state.isp_sets = {
      testing::Object("IspSet", "telecom",
                      {{"asns", {64512, 4134}}, {"names", {"CT"}}}),
      testing::Object("IspSet", "idc", {{"names", {"IDC"}}}),
      testing::Object("IspSet", "spare", {{"asns", {65000}}})};
  c.Step(kT0);
  const Snapshot s = *ParseRouteTableConfigMap(*c.state.route_table).snapshot;
  ASSERT_EQ(s.isp_sets.size(), 2u);
  EXPECT_EQ(s.isp_sets[0], (SnapshotIspSet{"idc", {}, {"IDC"}}));
  EXPECT_EQ(s.isp_sets[1].name, "telecom");
  EXPECT_TRUE(std::binary_search(s.isp_sets[1].asns.begin(),
                                 s.isp_sets[1].asns.end(), 64512u));

  const json& telecom = c.Status("IspSet", "telecom");
  EXPECT_EQ(telecom["asns"], s.isp_sets[1].asns.size());
  EXPECT_EQ(telecom["regions"], json({"south"}));
  EXPECT_EQ(ConditionOf(telecom, "Ready")["reason"], "ExtendsBuiltin");
  EXPECT_EQ(ConditionOf(c.Status("IspSet", "idc"), "Ready")["message"],
            "0 ASNs and 1 name; 1 Region matches clients on it");
  EXPECT_EQ(ConditionOf(c.Status("IspSet", "spare"), "Ready")["message"],
            "1 ASN and 0 names; no Region matches clients on it");

  c.EditSpec("IspSet", "idc", {{"names", json::array()}});
  const Plan plan = c.Step(kT0 + 1000);
  EXPECT_THAT(EventLines(plan),
              IsSupersetOf({"IspSet/idc Warning InvalidSpec",
                            "Region/south Warning InvalidSpec"}));
  EXPECT_THAT(plan.invalid_objects.at("Region/south").front().ToString(),
              HasSubstr("spec.match.isps[1]: no ISP set named \"idc\""));
  EXPECT_EQ(ConditionOf(c.Status("IspSet", "idc"), "Ready")["reason"],
            "InvalidSpec");
}

// A GeoOverride is Proposed until approved, Active once the served table
// carries it, and Expired at expiresAt, when the plan wakes to drop it.
TEST(PlanStatus, GeoOverridesReportProposedActiveExpired) {
  const int64_t expires = kT0 + 60'000;
  FakeCluster c = SmallCluster();
  c.state.geo_overrides = {
      testing::Object("GeoOverride", "gd-mobile",
                      {{"cidrs", {"120.230.0.0/16"}},
                       {"region", "north"},
                       {"expiresAt", FormatRfc3339Seconds(expires)}}),
      testing::Object("GeoOverride", "proposal",
                      {{"cidrs", {"10.0.0.0/8"}},
                       {"region", "north"},
                       {"approved", false}}),
      testing::Object("GeoOverride", "bad",
                      {{"cidrs", {"10.0.0.0/8"}}, {"region", "nowhere"}})};
  Plan plan = c.Step(kT0);
  const Snapshot s = *ParseRouteTableConfigMap(*c.state.route_table).snapshot;
  ASSERT_EQ(s.geo_overrides.size(), 1u);
  EXPECT_EQ(s.geo_overrides[0].name, "gd-mobile");

  json active = c.Status("GeoOverride", "gd-mobile");
  EXPECT_EQ(active["phase"], "Active");
  EXPECT_EQ(active["active"], true);
  EXPECT_EQ(
      ConditionOf(active, "Ready")["message"],
      "moves 1 CIDR to Region north until " + FormatRfc3339Seconds(expires));
  const json proposal = c.Status("GeoOverride", "proposal");
  EXPECT_EQ(proposal["phase"], "Proposed");
  EXPECT_EQ(ConditionOf(proposal, "Ready")["reason"], "Proposed");
  EXPECT_EQ(ConditionOf(c.Status("GeoOverride", "bad"), "Ready")["reason"],
            "InvalidSpec");

  // The plan wakes at expiresAt to take it out.
  c.state.probe_reports = testing::UpReports(expires - 2000);
  EXPECT_EQ(c.Step(expires - 1).requeue_after_ms, 1);
  plan = c.Step(expires);
  EXPECT_THAT(EventLines(plan),
              Contains("GeoOverride/gd-mobile Normal GeoOverrideExpired"));
  EXPECT_EQ(c.Status("GeoOverride", "gd-mobile")["phase"], "Expired");
  EXPECT_TRUE(ParseRouteTableConfigMap(*c.state.route_table)
                  .snapshot->geo_overrides.empty());
}

// The CRD keeps results an atomic list (cheap to apply), so the apiserver
// lets a report list a node twice: the plan leaves that report out, says
// which entry in its Ready condition, and counts the other vantage's votes.
TEST(PlanStatus, AReportListingANodeTwiceIsLeftOutAndSaysWhere) {
  FakeCluster c = SmallCluster();
  c.state.probe_reports = {
      Report("vantage-a", kT0 - 500, Health::kDown),
      ReportObject("vantage-b", kT0 - 500,
                   {NodeResult("gz-02", Health::kUp, 9, kT0 - 300'000),
                    NodeResult("gz-02", Health::kUp, 9, kT0 - 300'000)})};
  const Plan plan = c.Step(kT0);
  const json ready = ConditionOf(c.Status("ProbeReport", "vantage-b"), "Ready");
  EXPECT_EQ(ready["reason"], "InvalidSpec");
  EXPECT_THAT(ready["message"].get<std::string>(),
              HasSubstr("spec.results[1].node: duplicate node \"gz-02\""));
  EXPECT_EQ(c.Status("Node", "gz-02")["health"], "Down");  // a's vote alone
  EXPECT_THAT(EventLines(plan),
              Contains("ProbeReport/vantage-b Warning InvalidSpec"));
}

// The Rule applies until exactly expiresAt (the builder's Rule::ExpiredAt):
// one millisecond before it shapes routes, at it the snapshot drops it.
TEST(PlanStatus, RuleExpiresAtExactlyExpiresAt) {
  const int64_t expires = kT0 + 60'000;
  FakeCluster c = SmallCluster();
  c.state.rules.push_back(testing::RuleObject(
      "drain-gz-01", "www", "Exclude", "gz-01", FormatRfc3339Seconds(expires)));
  c.state.probe_reports = testing::UpReports(expires - 2000);
  Plan plan = c.Step(expires - 1);
  EXPECT_EQ(plan.requeue_after_ms, 1);
  json rule = c.Status("Rule", "drain-gz-01");
  EXPECT_EQ(rule["active"], true);
  EXPECT_EQ(rule["expired"], false);
  EXPECT_EQ(
      ConditionOf(rule, "Ready")["message"],
      "shapes 2 routes of Domain www until " + FormatRfc3339Seconds(expires));
  auto rules_in_table = [&c] {
    std::vector<std::string> names;
    const Snapshot s = *ParseRouteTableConfigMap(*c.state.route_table).snapshot;
    for (const Route& r : s.routes) {
      names.insert(names.end(), r.rules.begin(), r.rules.end());
    }
    return names;
  };
  // South's route and the unclassified clients' (all healthy nodes).
  EXPECT_THAT(rules_in_table(), ElementsAre("drain-gz-01", "drain-gz-01"));

  plan = c.Step(expires);
  EXPECT_EQ(plan.summary.outcome, PublishOutcome::kPublished);
  EXPECT_EQ(plan.summary.version, 2u);
  EXPECT_THAT(EventLines(plan),
              Contains("Rule/drain-gz-01 Normal RuleExpired"));
  rule = c.Status("Rule", "drain-gz-01");
  EXPECT_EQ(rule["active"], false);
  EXPECT_EQ(rule["expired"], true);
  EXPECT_EQ(ConditionOf(rule, "Ready")["reason"], "Expired");
  EXPECT_THAT(rules_in_table(), IsEmpty());
  EXPECT_THAT(c.Plan(expires + 1000).events, IsEmpty());
}

// A drain is done when it is safe (issue 18): the Node says when the served
// table stopped naming it, and Drained turns True once the longest TTL of its
// Domains (300 s steady here) has passed since, waking the plan for it.
TEST(PlanStatus, DrainedOnceTheLastCachedAnswerHasExpired) {
  FakeCluster c = SmallCluster();
  c.Step(kT0);
  json gz02 = c.Status("Node", "gz-02");
  EXPECT_FALSE(gz02.contains("leftAnswersAt"));
  EXPECT_EQ(ConditionOf(gz02, "Drained")["reason"], "NotDraining");

  c.EditSpec("Node", "gz-02", {{"adminState", "Drain"}});
  const int64_t t1 = kT0 + 5000;
  Plan plan = c.Step(t1);
  ASSERT_TRUE(plan.route_table);  // the table without gz-02
  gz02 = c.Status("Node", "gz-02");
  EXPECT_EQ(gz02["leftAnswersAt"], FormatRfc3339Ms(t1));
  json drained = ConditionOf(gz02, "Drained");
  EXPECT_EQ(drained["status"], "False");
  EXPECT_EQ(drained["reason"], "CachesExpiring");
  EXPECT_THAT(drained["message"].get<std::string>(),
              HasSubstr("until " + FormatRfc3339Seconds(t1 + 300'000) +
                        " (TTL 300 s)"));
  ASSERT_TRUE(plan.requeue_after_ms);  // also the reports' freshness
  EXPECT_LE(*plan.requeue_after_ms, 300'000);

  c.ReplaceReports(::ax::testing::UpReports(t1 + 298'000));
  plan = c.Step(t1 + 299'000);
  EXPECT_EQ(ConditionOf(c.Status("Node", "gz-02"), "Drained")["status"],
            "False");
  EXPECT_EQ(plan.requeue_after_ms, 1000);  // wakes when the caches expire

  plan = c.Step(t1 + 300'000);
  gz02 = c.Status("Node", "gz-02");
  EXPECT_EQ(gz02["leftAnswersAt"], FormatRfc3339Ms(t1));  // kept
  drained = ConditionOf(gz02, "Drained");
  EXPECT_EQ(drained["status"], "True");
  EXPECT_EQ(drained["reason"], "Drained");
  EXPECT_EQ(drained["lastTransitionTime"], FormatRfc3339Seconds(t1 + 300'000));
  EXPECT_THAT(EventLines(plan), Contains("Node/gz-02 Normal NodeDrained"));
  EXPECT_THAT(EventLines(c.Step(t1 + 310'000)),
              Not(Contains("Node/gz-02 Normal NodeDrained")));

  // Back in service: named again, no drain.
  c.EditSpec("Node", "gz-02", {{"adminState", "Active"}});
  c.Step(t1 + 320'000);
  gz02 = c.Status("Node", "gz-02");
  EXPECT_FALSE(gz02.contains("leftAnswersAt"));
  EXPECT_EQ(ConditionOf(gz02, "Drained")["status"], "False");
  EXPECT_EQ(ConditionOf(gz02, "Drained")["reason"], "NotDraining");
}

// A drain for a maintenance window (axctl drain --for): Ready says until when
// and why, the plan wakes at adminStateExpiresAt and from then on the node is
// answered again, with nobody having to remember to undrain it.
TEST(PlanStatus, ADrainForAWhileLapsesAtItsExpiry) {
  const int64_t until = kT0 + 600'000;
  FakeCluster c = SmallCluster();
  c.EditSpec("Node", "gz-02",
             {{"adminState", "Drain"},
              {"adminStateExpiresAt", FormatRfc3339Seconds(until)},
              {"adminStateReason", "INC-1234 disk swap"}});
  c.state.probe_reports = testing::UpReports(until - 2000);
  Plan plan = c.Step(until - 1000);
  EXPECT_EQ(plan.requeue_after_ms, 1000);
  auto named = [&c] {
    const Snapshot s = *ParseRouteTableConfigMap(*c.state.route_table).snapshot;
    for (const SnapshotNode& n : s.nodes) {
      if (n.name == "gz-02") return n.admin_state == AdminState::kActive;
    }
    return false;
  };
  EXPECT_FALSE(named());
  json ready = ConditionOf(c.Status("Node", "gz-02"), "Ready");
  EXPECT_EQ(ready["reason"], "Draining");
  EXPECT_EQ(ready["message"], "adminState Drain until " +
                                  FormatRfc3339Seconds(until) +
                                  " (INC-1234 disk swap): left out of answers");

  plan = c.Step(until);
  EXPECT_EQ(plan.summary.outcome, PublishOutcome::kPublished);
  EXPECT_TRUE(named());
  EXPECT_EQ(ConditionOf(c.Status("Node", "gz-02"), "Ready")["reason"], "Up");
  EXPECT_EQ(ConditionOf(c.Status("Node", "gz-02"), "Drained")["reason"],
            "NotDraining");
}

// A drained node the served table still names is never called Drained:
// with every node drained and no domain fallback, fail-open answers the
// nodes that are not Disabled.
TEST(PlanStatus, ADrainedNodeStillAnsweredIsNotDrained) {
  FakeCluster c = SmallCluster();
  for (json& node : c.state.nodes) node["spec"]["adminState"] = "Drain";
  c.Step(kT0);
  const json drained = ConditionOf(c.Status("Node", "gz-02"), "Drained");
  EXPECT_EQ(drained["status"], "False");
  EXPECT_EQ(drained["reason"], "InAnswers");
  EXPECT_FALSE(c.Status("Node", "gz-02").contains("leftAnswersAt"));
}

}  // namespace
}  // namespace ax::controller
