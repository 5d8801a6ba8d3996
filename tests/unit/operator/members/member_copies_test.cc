// What a member cluster holds: the route-table copy keeps the data and Ax's
// annotations (not the confirmation, not foreign ones), the probe targets list
// the Nodes by name, and HoldsCopy ignores what the member added.
#include "member_copies.h"

#include <gtest/gtest.h>

#include "ax/probe_targets.h"
#include "ax/route_table_configmap.h"

namespace ax::controller {
namespace {

using nlohmann::json;

json RouteTable() {
  return json::parse(R"({
    "apiVersion": "v1", "kind": "ConfigMap",
    "metadata": {"name": "ax-route-table", "namespace": "ax-system",
                 "resourceVersion": "42", "uid": "u-1",
                 "ownerReferences": [{"kind": "ServiceAccount"}],
                 "labels": {"app.kubernetes.io/part-of": "ax",
                            "gslb.ax.io/route-table": "ax-route-table"},
                 "annotations": {"gslb.ax.io/snapshot-version": "7",
                                 "gslb.ax.io/content-hash": "fnv1a64:1",
                                 "kubectl.kubernetes.io/last-applied": "x"}},
    "data": {"snapshot.json": "{}"}})");
}

json Node(const std::string& name, int weight) {
  return {{"apiVersion", "gslb.ax.io/v1alpha1"},
          {"kind", "Node"},
          {"metadata", {{"name", name}, {"resourceVersion", "9"}}},
          {"spec", {{"weight", weight}}},
          {"status", {{"health", "Up"}}}};
}

TEST(MemberConfigMapsTest, RouteTableCopyKeepsDataAndAxAnnotations) {
  const auto copies =
      MemberConfigMaps(RouteTable(), {Node("b", 1)}, "ax-route-table");
  ASSERT_EQ(copies.size(), 2u);
  const json& copy = copies[0];
  EXPECT_EQ(copy["metadata"]["name"], "ax-route-table");
  EXPECT_FALSE(copy["metadata"].contains("namespace"));
  EXPECT_FALSE(copy["metadata"].contains("resourceVersion"));
  EXPECT_FALSE(copy["metadata"].contains("ownerReferences"));
  EXPECT_EQ(copy["metadata"]["annotations"],
            (json{{"gslb.ax.io/snapshot-version", "7"},
                  {"gslb.ax.io/content-hash", "fnv1a64:1"}}));
  EXPECT_EQ(copy["metadata"]["labels"]["gslb.ax.io/route-table"],
            "ax-route-table");
  EXPECT_EQ(copy["data"], RouteTable()["data"]);
}

TEST(MemberConfigMapsTest, BeforeTheFirstPublishOnlyTheProbeTargets) {
  const auto copies = MemberConfigMaps(json(), {Node("a", 1)}, "t");
  ASSERT_EQ(copies.size(), 1u);
  EXPECT_EQ(copies[0]["metadata"]["name"], "t-nodes");
}

TEST(MemberConfigMapsTest, ProbeTargetsListNodesByNameWithSpecOnly) {
  const auto copies = MemberConfigMaps(
      RouteTable(), {Node("b", 2), Node("a", 1)}, "ax-route-table");
  const json& targets = copies[1];
  EXPECT_EQ(targets["metadata"]["name"], "ax-route-table-nodes");
  EXPECT_EQ(targets["metadata"]["labels"][kProbeTargetsLabel],
            "ax-route-table");
  const ProbeTargets read = ReadProbeTargets(targets);
  ASSERT_TRUE(read.error.empty()) << read.error;
  ASSERT_EQ(read.nodes.size(), 2u);
  EXPECT_EQ(read.nodes[0]["metadata"], (json{{"name", "a"}}));
  EXPECT_EQ(read.nodes[1]["spec"], (json{{"weight", 2}}));
  EXPECT_EQ(read.nodes[0]["kind"], "Node");
  EXPECT_FALSE(read.nodes[0].contains("status"));
  // The same Nodes in another order: the same bytes, so no rewrite.
  EXPECT_EQ(MemberConfigMaps(RouteTable(), {Node("a", 1), Node("b", 2)},
                             "ax-route-table")[1],
            targets);
}

TEST(HoldsCopyTest, IgnoresTheConfirmationAndForeignMetadata) {
  const json desired = MemberConfigMaps(RouteTable(), {}, "ax-route-table")[0];
  json current = desired;
  current["metadata"]["resourceVersion"] = "100";
  current["metadata"]["annotations"][kConfirmedAtAnnotation] =
      "2026-12-04T18:00:00Z";
  current["metadata"]["labels"]["team"] = "edge";
  EXPECT_TRUE(HoldsCopy(current, desired));
  json older = current;
  older["metadata"]["annotations"]["gslb.ax.io/snapshot-version"] = "6";
  EXPECT_FALSE(HoldsCopy(older, desired));
  json other_data = current;
  other_data["data"]["snapshot.json"] = "{\"v\":1}";
  EXPECT_FALSE(HoldsCopy(other_data, desired));
  json gzipped = current;
  gzipped["binaryData"] = {{"snapshot.json.gz", "AAAA"}};
  EXPECT_FALSE(HoldsCopy(gzipped, desired));
}

TEST(ReadProbeTargetsTest, NamesTheKeyOfABrokenMap) {
  EXPECT_EQ(ReadProbeTargets(json::object()).error, "data.nodes.yaml: missing");
  const json not_a_list = {{"data", {{kProbeTargetsKey, "[1, 2"}}}};
  EXPECT_EQ(ReadProbeTargets(not_a_list).error,
            "data.nodes.yaml: not a List document with items");
  const json bad_item = {
      {"data", {{kProbeTargetsKey, R"({"kind":"List","items":[1]})"}}}};
  const ProbeTargets read = ReadProbeTargets(bad_item);
  EXPECT_EQ(read.error, "data.nodes.yaml: an item is not an object");
  EXPECT_TRUE(read.nodes.empty());
}

}  // namespace
}  // namespace ax::controller
