// Standalone's pure parts: the standalone vantage's report (unchecked nodes
// count Up), the held objects (statuses kept, generation bumped only by a spec
// edit, an unreadable file's objects kept), and which status rewrites are
// worth a log line.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "ax/manifest_loader.h"
#include "server/standalone_log.h"
#include "server/standalone_objects.h"
#include "server/standalone_report.h"

namespace ax::dns {
namespace {

using nlohmann::json;

json Node(const std::string& name, int weight) {
  return {{"apiVersion", kApiVersion},
          {"kind", "Node"},
          {"metadata", {{"name", name}}},
          {"spec", {{"addresses", {"192.0.2.1"}}, {"weight", weight}}}};
}

ManifestObjects Read(std::vector<json> nodes, const std::string& file) {
  ManifestObjects read;
  for (json& n : nodes) {
    read.sources["Node/" + n["metadata"]["name"].get<std::string>()] = {
        file, file + ":1#1"};
    read.objects.nodes.push_back(std::move(n));
  }
  return read;
}

TEST(StandaloneReportTest, NodesWithoutAVerdictCountUp) {
  ManifestLoadResult loaded = LoadManifestText(
      R"(apiVersion: gslb.ax.io/v1alpha1
kind: Node
metadata: {name: checked}
spec: {addresses: [192.0.2.1], healthCheck: {port: 80}}
---
apiVersion: gslb.ax.io/v1alpha1
kind: Node
metadata: {name: probed}
spec: {addresses: [192.0.2.2], healthCheck: {port: 80}}
---
apiVersion: gslb.ax.io/v1alpha1
kind: Node
metadata: {name: unchecked}
spec: {addresses: [192.0.2.3]}
)",
      "nodes.yaml");
  ASSERT_TRUE(loaded.ok());
  const std::vector<std::string> nodes = CheckedNodes(loaded.world);
  ASSERT_EQ(nodes, (std::vector<std::string>{"checked", "probed"}));

  std::map<std::string, probe::NodeProbeState> states;
  states["probed"].status = {.health = Health::kDown,
                             .health_changed_at_ms = 500};
  states["probed"].consecutive_failures = 3;
  const ProbeReport report = StandaloneReport(nodes, states, "here", 1000);
  EXPECT_EQ(report.vantage, "here");
  EXPECT_EQ(report.observed_at_ms, 1000);
  ASSERT_EQ(report.results.size(), 2u);
  // No verdict: Up with no probe behind it.
  EXPECT_EQ(report.results[0].node, "checked");
  EXPECT_EQ(report.results[0].health, Health::kUp);
  EXPECT_FALSE(report.results[0].up);
  EXPECT_FALSE(report.results[0].latency_ms);
  // A verdict stands as the engine has it.
  EXPECT_EQ(report.results[1].health, Health::kDown);
  EXPECT_EQ(report.results[1].consecutive_failures, 3u);
  // --no-probe: nothing probed, everything checked counts Up.
  for (const ProbeNodeReport& r :
       StandaloneReport(nodes, {}, "here", 1).results) {
    EXPECT_EQ(r.health, Health::kUp) << r.node;
  }
}

TEST(StandaloneObjectsTest, StatusAndGenerationSurviveAReread) {
  ApiObjects held;
  ObjectSources sources;
  ReplaceObjects(Read({Node("a", 1), Node("b", 1)}, "n.yaml"), held, sources);
  ASSERT_EQ(held.nodes.size(), 2u);
  EXPECT_EQ(held.nodes[0]["metadata"]["generation"], 1);

  controller::ObservedState observed;
  static_cast<ApiObjects&>(observed) = held;
  controller::StatusUpdate update;
  update.object.kind = "Node";
  update.object.name = "a";
  update.status = {{"health", "Up"}};
  const std::optional<json> before = WriteStatus(update, observed);
  ASSERT_TRUE(before);
  EXPECT_TRUE(before->is_null());
  update.object.name = "gone";
  EXPECT_FALSE(WriteStatus(update, observed));
  held = observed;

  // a unchanged, b edited, c new; the file's status for a is not the API's.
  json a = Node("a", 1);
  a["status"] = {{"health", "Down"}};
  ReplaceObjects(Read({a, Node("b", 2), Node("c", 1)}, "n.yaml"), held,
                 sources);
  ASSERT_EQ(held.nodes.size(), 3u);
  EXPECT_EQ(held.nodes[0]["metadata"]["generation"], 1);
  EXPECT_EQ(held.nodes[0]["status"]["health"], "Up");
  EXPECT_EQ(held.nodes[1]["metadata"]["generation"], 2);
  EXPECT_FALSE(held.nodes[1].contains("status"));
  EXPECT_EQ(held.nodes[2]["metadata"]["generation"], 1);
  EXPECT_EQ(sources.at("Node/c").file, "n.yaml");
}

TEST(StandaloneObjectsTest, AnUnreadableFileKeepsWhatItHeldAndADeletedOneNot) {
  ApiObjects held;
  ObjectSources sources;
  ManifestObjects first = Read({Node("a", 1)}, "a.yaml");
  ManifestObjects b = Read({Node("b", 1)}, "b.yaml");
  first.objects.nodes.push_back(b.objects.nodes[0]);
  first.sources.insert(b.sources.begin(), b.sources.end());
  ReplaceObjects(std::move(first), held, sources);

  ManifestObjects broken = Read({Node("b", 1)}, "b.yaml");
  broken.unreadable_files = {"a.yaml"};
  ReplaceObjects(std::move(broken), held, sources);
  ASSERT_EQ(held.nodes.size(), 2u);
  EXPECT_EQ(held.nodes[1]["metadata"]["name"], "a");
  EXPECT_EQ(sources.at("Node/a").file, "a.yaml");

  ReplaceObjects(Read({Node("b", 1)}, "b.yaml"), held, sources);  // deleted
  ASSERT_EQ(held.nodes.size(), 1u);
  EXPECT_FALSE(sources.contains("Node/a"));
}

TEST(StandaloneLogTest, ChangedConditionsAndPhaseAreWorthALineTimesAreNot) {
  const json before = {{"phase", "Progressing"},
                       {"percent", 5},
                       {"conditions",
                        {{{"type", "Ready"},
                          {"status", "True"},
                          {"reason", "Progressing"},
                          {"message", "step 1/4"},
                          {"lastTransitionTime", "2026-11-30T00:53:20Z"},
                          {"observedGeneration", 1}}}}};
  json after = before;
  after["conditions"][0]["lastTransitionTime"] = "2026-11-30T01:00:00Z";
  after["conditions"][0]["observedGeneration"] = 2;
  after["latencyMs"] = 4.5;
  EXPECT_FALSE(WorthALine(before, after));
  after["conditions"][0]["message"] = "step 2/4";
  EXPECT_TRUE(WorthALine(before, after));
  json phase = before;
  phase["phase"] = "Succeeded";
  EXPECT_TRUE(WorthALine(before, phase));
  // A first status: only when something is not True.
  EXPECT_FALSE(WorthALine(json(), before));
  json draining = before;
  draining["conditions"][0]["status"] = "False";
  EXPECT_TRUE(WorthALine(json(), draining));
}

TEST(StandaloneLogTest, InvalidObjectsGetTheirSource) {
  ObjectSources sources = {{"Domain/www", {"d.yaml", "d.yaml:3#1"}}};
  const std::vector<ManifestError> errors = ManifestErrors(
      {{"x.yaml:1#1", "", "kind", "is required"}},
      {{"Domain/www", {{"", "Domain/www", "spec.maxAnswers", "must be >= 1"}}}},
      sources);
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[1].source, "d.yaml:3#1");
  EXPECT_EQ(ManifestErrorSummary("dir", errors),
            "2 manifest error(s) in dir, first: x.yaml:1#1: kind: is required");
}

}  // namespace
}  // namespace ax::dns
