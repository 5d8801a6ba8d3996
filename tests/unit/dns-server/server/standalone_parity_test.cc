// The same manifests and the same health give the same snapshot in standalone
// and in operator mode. Operator: the quickstart's objects as the Kubernetes
// API lists them, planned with ComputePlan and written back as the API would
// (operator_objects.h), with the ProbeReport ax-probe writes. Standalone: the
// same directory through the standalone pipeline, with the report its
// in-process vantage builds from the same engine states. Pass after pass
// (canary steps, a node failing over and back, latencies moving) the content
// hashes agree.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "ax/manifest_objects.h"
#include "operator_objects.h"
#include "report/report_builder.h"
#include "server/standalone_pipeline.h"
#include "server/standalone_report.h"
#include "server_test_support.h"

namespace ax::dns {
namespace {

using nlohmann::json;

constexpr int64_t kT0 = 1'796'000'000'000;  // 2026-11-30T00:53:20Z
constexpr int64_t kMinute = 60'000;

// What the API adds to an object it stores.
ApiObjects AsListed(ApiObjects objects) {
  int revision = 1;
  for (std::string_view kind : kManifestKinds) {
    for (json& object : *ObjectsOfKind(objects, kind)) {
      json& meta = object["metadata"];
      meta["namespace"] = "ax-system";
      meta["uid"] = std::string(kind) + "-" + meta["name"].get<std::string>();
      meta["generation"] = 1;
      meta["resourceVersion"] = std::to_string(revision++);
    }
  }
  return objects;
}

// One engine's view: every checked node Up at `latency_ms`, but `down`.
std::map<std::string, probe::NodeProbeState> States(
    const std::vector<std::string>& nodes, double latency_ms,
    const std::string& down, int64_t changed_at_ms) {
  std::map<std::string, probe::NodeProbeState> states;
  for (const std::string& node : nodes) {
    probe::NodeProbeState& s = states[node];
    const bool up = node != down;
    s.status = {.health = up ? Health::kUp : Health::kDown,
                .latency_ms = up ? std::optional(latency_ms) : std::nullopt,
                .health_changed_at_ms = changed_at_ms};
    s.consecutive_successes = up ? 5 : 0;
    s.consecutive_failures = up ? 0 : 3;
  }
  return states;
}

std::string HashOf(const std::optional<json>& route_table) {
  if (!route_table) return "";
  const ParseRouteTableResult parsed = ParseRouteTableConfigMap(*route_table);
  return parsed.snapshot ? parsed.snapshot->content_hash : "unreadable";
}

TEST(StandaloneParityTest, SameManifestsAndHealthGiveTheSameSnapshot) {
  const ManifestObjects read = ReadManifestObjects(testing::QuickstartDir());
  ASSERT_TRUE(read.errors.empty());
  controller::ObservedState cluster;
  static_cast<ApiObjects&>(cluster) = AsListed(read.objects);
  int64_t revision = 100;
  StandalonePipeline standalone(StandalonePlanOptions(5));
  standalone.SetObjects(read);
  const std::vector<std::string> nodes =
      CheckedNodes(GatherWorld(read.objects).world);

  struct Pass {
    int64_t at_ms;
    double latency_ms;
    std::string down;
  };
  // The canary's pauses are 10, 10 and 30 minutes; gz-01 fails and comes
  // back in between; latency wobbles (held) and then jumps (not held).
  const Pass passes[] = {{kT0, 12, ""},
                         {kT0 + 5 * kMinute, 12.5, "gz-01"},
                         {kT0 + 10 * kMinute, 13, "gz-01"},
                         {kT0 + 20 * kMinute, 13, ""},
                         {kT0 + 21 * kMinute, 40, ""},
                         {kT0 + 50 * kMinute, 40, ""}};
  std::set<std::string> hashes;
  for (const Pass& p : passes) {
    const auto states = States(nodes, p.latency_ms, p.down, p.at_ms - kMinute);
    // What ax-probe writes for this vantage, as the operator lists it.
    const ProbeReport written =
        probe::BuildReport(nodes, states, "pod-a", p.at_ms);
    cluster.probe_reports = {
        ax::testing::ReportObject("pod-a", p.at_ms, written.results)};
    cluster.now_ms = p.at_ms;
    ax::testing::ApplyPlan(controller::ComputePlan(cluster), cluster, revision);

    const StandalonePass pass = standalone.Plan(
        {}, StandaloneReport(nodes, states, "pod-a", p.at_ms), {}, p.at_ms);
    ASSERT_EQ(pass.valid_domains, 2u);
    standalone.Commit(pass.plan);

    const std::string hash = HashOf(cluster.route_table);
    ASSERT_FALSE(hash.empty());
    EXPECT_EQ(HashOf(standalone.observed().route_table), hash)
        << "at +" << (p.at_ms - kT0) / kMinute << " min";
    hashes.insert(hash);
  }
  // Not the same snapshot all along: canary, failover and latency showed.
  EXPECT_GE(hashes.size(), 5u);
}

}  // namespace
}  // namespace ax::dns
