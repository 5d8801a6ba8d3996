// YAML manifests from real files and directories: the quickstart loads cleanly,
// document and List handling keep sources exact, and each kind of mistake names
// file:line#document, object and field.
#include "ax/manifest_loader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "temp_dir.h"

namespace ax {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

using ax::testing::TempDir;

std::string Dump(const std::vector<ManifestError>& errors) {
  std::string out;
  for (const auto& e : errors) out += e.ToString() + "\n";
  return out;
}

TEST(ManifestLoaderTest, QuickstartLoadsWithoutErrors) {
  const fs::path dir = fs::path(AX_SOURCE_DIR) / "examples" / "quickstart";
  ManifestLoadResult r = LoadManifestDir(dir);
  ASSERT_TRUE(r.ok()) << Dump(r.errors);
  const World& w = r.world;
  EXPECT_EQ(w.nodes.size(), 6u);
  EXPECT_EQ(w.regions.size(), 4u);
  EXPECT_EQ(w.domains.size(), 2u);
  EXPECT_EQ(w.rules.size(), 1u);
  EXPECT_EQ(w.canaries.size(), 1u);

  // Files load in name order: canaries, domains, nodes, regions, rules.
  EXPECT_EQ(w.nodes[0].meta.name, "gz-01");
  EXPECT_EQ(w.nodes[0].meta.source,
            (dir / "nodes.yaml").generic_string() + ":5#1");
  EXPECT_EQ(w.nodes[0].addresses.size(), 2u);
  EXPECT_EQ(w.nodes[0].health_check->path, "/healthz");
  EXPECT_EQ(w.nodes[0].health_check->address, ParseIp("127.0.0.1"));
  EXPECT_EQ(w.nodes[2].meta.name, "bj-01");
  EXPECT_EQ(w.nodes[2].health_check->expect_status,
            (std::vector<int>{200, 204}));
  EXPECT_EQ(w.nodes[2].health_check->timeout_ms, 1500u);
  EXPECT_EQ(w.nodes[3].admin_state, AdminState::kDrain);
  EXPECT_EQ(w.nodes[5].health_check->protocol, ProbeProtocol::kTcp);

  EXPECT_EQ(w.regions[0].match.subdivisions, std::vector<std::string>{"CN-GD"});
  EXPECT_EQ(w.regions[0].match.isps, std::vector<std::string>{"telecom"});
  EXPECT_EQ(w.regions[2].match.countries, std::vector<std::string>{"US"});
  EXPECT_TRUE(w.regions[3].match.catch_all);
  EXPECT_EQ(w.regions[3].fallback_regions.size(), 3u);

  const Domain& www = w.domains[0];
  EXPECT_EQ(www.fqdn, "www.example.test");
  EXPECT_EQ(www.strategy, Strategy::kRegionPriority);
  EXPECT_EQ(www.fallback.cname, "origin.example.test");
  const Domain& api = w.domains[1];
  EXPECT_EQ(api.strategy, Strategy::kWeightedRandom);
  EXPECT_EQ(api.max_answers, 4u);
  EXPECT_EQ(api.grpc_service_config,
            R"({"loadBalancingConfig":[{"round_robin":{}}]})");

  EXPECT_EQ(w.rules[0].action, RuleAction::kExclude);
  EXPECT_EQ(w.rules[0].expires_at, 1893456000);  // 2030-01-01T00:00:00Z
  std::vector<double> percents;
  for (const CanaryStep& s : w.canaries[0].steps) percents.push_back(s.percent);
  EXPECT_THAT(percents, ElementsAre(5, 20, 50, 100));
  EXPECT_EQ(w.canaries[0].steps[0].pause_seconds, 600u);
  EXPECT_DOUBLE_EQ(w.canaries[0].analysis.max_latency_ms, 250);
}

// A valid world of three documents (14 lines); each case appends one more
// document.
constexpr char kBase[] = R"(apiVersion: gslb.ax.io/v1alpha1
kind: Node
metadata: {name: n1}
spec: {addresses: [192.0.2.1]}
---
apiVersion: gslb.ax.io/v1alpha1
kind: Region
metadata: {name: r1}
spec: {nodes: [n1], match: {default: true}}
---
apiVersion: gslb.ax.io/v1alpha1
kind: Domain
metadata: {name: d1}
spec: {fqdn: www.example.test, zone: example.test}
)";
constexpr int kBaseLines = 14;

struct MistakeCase {
  const char* label;
  const char* extra;  // starts with "---", the base's line 15
  int line;           // line of the error inside `extra`, counting "---" as 1
  bool per_object;    // source carries "#4" (the fourth document)
  const char* object;
  const char* field;
  const char* message_part;
};

class MistakeTest : public ::testing::TestWithParam<MistakeCase> {};

TEST_P(MistakeTest, NamesFileLineObjectAndField) {
  const MistakeCase& c = GetParam();
  TempDir tmp;
  const fs::path file = tmp.Write("case.yaml", std::string(kBase) + c.extra);
  ManifestLoadResult r = LoadManifestDir(tmp.path());
  ASSERT_EQ(r.errors.size(), 1u) << Dump(r.errors);
  const ManifestError& e = r.errors[0];
  std::string source =
      file.generic_string() + ":" + std::to_string(kBaseLines + c.line);
  if (c.per_object) source += "#4";
  EXPECT_EQ(e.source, source);
  EXPECT_EQ(e.object, c.object);
  EXPECT_EQ(e.field, c.field);
  EXPECT_THAT(e.message, HasSubstr(c.message_part));
}

INSTANTIATE_TEST_SUITE_P(
    Cases, MistakeTest,
    ::testing::Values(
        MistakeCase{"UnknownKind",
                    "---\napiVersion: gslb.ax.io/v1alpha1\nkind: "
                    "Nod\nmetadata: {name: x}\n",
                    2, true, "Nod/x", "kind", "unknown kind \"Nod\""},
        MistakeCase{"WrongApiVersion",
                    "---\napiVersion: gslb.ax.io/v1\nkind: Node\nmetadata: "
                    "{name: x}\nspec: {addresses: [192.0.2.5]}\n",
                    2, true, "Node/x", "apiVersion",
                    "must be gslb.ax.io/v1alpha1"},
        MistakeCase{"MissingName",
                    "---\napiVersion: gslb.ax.io/v1alpha1\nkind: "
                    "Node\nmetadata: {labels: {a: b}}\n",
                    2, true, "Node", "metadata.name", "is required"},
        MistakeCase{"UnknownFieldTypo",
                    "---\napiVersion: gslb.ax.io/v1alpha1\nkind: "
                    "Node\nmetadata: {name: x}\nspec:\n  adress: [192.0.2.5]\n",
                    2, true, "Node/x", "spec.adress", "unknown field"},
        MistakeCase{"QuotedNumber",
                    "---\napiVersion: gslb.ax.io/v1alpha1\nkind: "
                    "Node\nmetadata: {name: x}\n"
                    "spec: {addresses: [192.0.2.5], weight: \"100\"}\n",
                    2, true, "Node/x", "spec.weight", "must be an integer"},
        MistakeCase{"QuotedBoolean",
                    "---\napiVersion: gslb.ax.io/v1alpha1\nkind: "
                    "Region\nmetadata: {name: x}\n"
                    "spec: {nodes: [n1], match: {default: 'true'}}\n",
                    2, true, "Region/x", "spec.match.default",
                    "must be true or false"},
        MistakeCase{
            "CidrWithHostBits",
            "---\napiVersion: gslb.ax.io/v1alpha1\nkind: Region\nmetadata: "
            "{name: x}\n"
            "spec: {nodes: [n1], match: {cidrs: [10.0.0.0/8, 10.0.0.1/8]}}\n",
            2, true, "Region/x", "spec.match.cidrs[1]", "host bits"},
        MistakeCase{"BadAddress",
                    "---\napiVersion: gslb.ax.io/v1alpha1\nkind: "
                    "Node\nmetadata: {name: x}\n"
                    "spec: {addresses: [192.0.2.300]}\n",
                    2, true, "Node/x", "spec.addresses[0]",
                    "not an IPv4 or IPv6 address"},
        MistakeCase{"BadDuration",
                    "---\napiVersion: gslb.ax.io/v1alpha1\nkind: "
                    "Node\nmetadata: {name: x}\n"
                    "spec: {addresses: [192.0.2.5], healthCheck: {port: 80, "
                    "interval: 5 sec}}\n",
                    2, true, "Node/x", "spec.healthCheck.interval",
                    "must be a duration"},
        MistakeCase{
            "PortOutOfRange",
            "---\napiVersion: gslb.ax.io/v1alpha1\nkind: Node\nmetadata: "
            "{name: x}\n"
            "spec: {addresses: [192.0.2.5], healthCheck: {port: 70000}}\n",
            2, true, "Node/x", "spec.healthCheck.port",
            "must be 1..65535, got 70000"},
        MistakeCase{"CanaryPercentOutOfRange",
                    "---\napiVersion: gslb.ax.io/v1alpha1\nkind: "
                    "Canary\nmetadata: {name: x}\n"
                    "spec: {domain: d1, node: n1, steps: [{percent: 50}, "
                    "{percent: 150}]}\n",
                    2, true, "Canary/x", "spec.steps[1].percent",
                    "must be 0..100, got 150"},
        MistakeCase{"RegionUndefinedNode",
                    "---\napiVersion: gslb.ax.io/v1alpha1\nkind: "
                    "Region\nmetadata: {name: x}\nspec: {nodes: [ghost]}\n",
                    2, true, "Region/x", "spec.nodes[0]",
                    "Node \"ghost\" is not defined"},
        MistakeCase{"DuplicateName",
                    "---\napiVersion: gslb.ax.io/v1alpha1\nkind: "
                    "Node\nmetadata: {name: n1}\n"
                    "spec: {addresses: [192.0.2.5]}\n",
                    2, true, "Node/n1", "metadata.name",
                    "duplicate Node name, first defined at"},
        MistakeCase{"RuleUndefinedDomain",
                    "---\napiVersion: gslb.ax.io/v1alpha1\nkind: "
                    "Rule\nmetadata: {name: x}\n"
                    "spec: {domain: nope, action: Exclude, node: n1}\n",
                    2, true, "Rule/x", "spec.domain",
                    "Domain \"nope\" is not defined"},
        MistakeCase{"FqdnOutsideZone",
                    "---\napiVersion: gslb.ax.io/v1alpha1\nkind: "
                    "Domain\nmetadata: {name: x}\n"
                    "spec: {fqdn: api.example.org, zone: example.test}\n",
                    2, true, "Domain/x", "spec.fqdn", "is not inside zone"},
        MistakeCase{"SecondDefaultRegion",
                    "---\napiVersion: gslb.ax.io/v1alpha1\nkind: "
                    "Region\nmetadata: {name: x}\n"
                    "spec: {nodes: [n1], match: {default: true}}\n",
                    2, true, "Region/x", "spec.match.default",
                    "Region/r1 already is"},
        MistakeCase{"DuplicateYamlKey",
                    "---\napiVersion: gslb.ax.io/v1alpha1\nkind: "
                    "Node\nmetadata: {name: x}\nspec:\n"
                    "  addresses: [192.0.2.5]\n  addresses: [192.0.2.6]\n",
                    7, false, "", "spec.addresses", "duplicate key"},
        MistakeCase{"YamlSyntaxError", "---\nkind: Node\n  metadata: x\n", 3,
                    false, "", "", "YAML syntax error"}),
    [](const auto& test) { return std::string(test.param.label); });

TEST(ManifestLoaderTest, MultiDocumentSkipsEmptyDocumentsButKeepsTheirNumbers) {
  TempDir tmp;
  const fs::path file = tmp.Write("nodes.yml", R"(# leading comment
---
---
# nothing but a comment
---
apiVersion: gslb.ax.io/v1alpha1
kind: Node
metadata: {name: a}
spec: {addresses: ["192.0.2.1"]}
---
apiVersion: gslb.ax.io/v1alpha1
kind: Node
metadata: {name: b}
spec: {addresses: ["192.0.2.2"]}
...
)");
  ManifestLoadResult r = LoadManifestFile(file);
  ASSERT_TRUE(r.errors.empty()) << Dump(r.errors);
  ASSERT_EQ(r.world.nodes.size(), 2u);
  EXPECT_EQ(r.world.nodes[0].meta.source, file.generic_string() + ":6#3");
  EXPECT_EQ(r.world.nodes[1].meta.source, file.generic_string() + ":11#4");
}

TEST(ManifestLoaderTest, KubectlListItemsAreObjects) {
  ManifestLoadResult r = LoadManifestText(R"(apiVersion: v1
kind: List
metadata: {resourceVersion: ""}
items:
- apiVersion: gslb.ax.io/v1alpha1
  kind: Node
  metadata: {name: a, uid: 1234, resourceVersion: "99", generation: 3}
  spec: {addresses: ["192.0.2.1"]}
  status: {health: Up}
- apiVersion: gslb.ax.io/v1alpha1
  kind: Node
  metadata: {name: b}
  spec: {addresses: ["192.0.2.300"]}
)",
                                          "list.yaml");
  ASSERT_EQ(r.errors.size(), 1u) << Dump(r.errors);
  EXPECT_EQ(r.errors[0].source, "list.yaml:10#1");
  EXPECT_EQ(r.errors[0].object, "Node/b");
  EXPECT_EQ(r.errors[0].field, "spec.addresses[0]");
  ASSERT_EQ(r.world.nodes.size(), 1u);
  EXPECT_EQ(r.world.nodes[0].meta.source, "list.yaml:5#1");
  EXPECT_EQ(r.world.nodes[0].meta.generation, 3);

  ManifestLoadResult bad =
      LoadManifestText("kind: List\nitems: {a: b}\n", "list.yaml");
  ASSERT_EQ(bad.errors.size(), 1u);
  EXPECT_EQ(bad.errors[0].field, "items");
}

// Aliases of aliases ("billion laughs"): ten lines that would expand to 10^9
// values are refused with the bound named, and the next document still loads.
TEST(ManifestLoaderTest, AnAliasBombIsRefused) {
  std::string bomb = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 9; ++i) {
    bomb += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int k = 0; k < 10; ++k) {
      bomb += (k ? ", *a" : "*a") + std::to_string(i - 1);
    }
    bomb += "]\n";
  }
  bomb +=
      "---\napiVersion: gslb.ax.io/v1alpha1\nkind: Node\nmetadata: {name: a}\n"
      "spec: {addresses: [\"192.0.2.1\"]}\n";
  const ManifestLoadResult r = LoadManifestText(bomb, "bomb.yaml");
  ASSERT_EQ(r.errors.size(), 1u) << Dump(r.errors);
  EXPECT_EQ(r.errors[0].source, "bomb.yaml:1#1");
  EXPECT_NE(r.errors[0].message.find("expands to more than 2097152 values"),
            std::string::npos)
      << r.errors[0].message;
  EXPECT_EQ(r.world.nodes.size(), 1u);
}

// yaml-cpp 0.7's LoadAll loops forever on these (the manifest fuzz target
// found the first): refused with the place named, in no time.
TEST(ManifestLoaderTest, AStrayCommaIsAnErrorNotAHang) {
  for (const char* text : {",", ",x", "[a],", "a: 1\n---\n, b\n"}) {
    const ManifestLoadResult r = LoadManifestText(text, "comma.yaml");
    ASSERT_EQ(r.errors.size(), 1u) << text << Dump(r.errors);
    EXPECT_NE(r.errors[0].message.find("no progress at line"),
              std::string::npos)
        << r.errors[0].message;
  }
}

TEST(ManifestLoaderTest, DeepNestingIsRefused) {
  const std::string deep = std::string(100, '[') + std::string(100, ']') + "\n";
  const ManifestLoadResult r = LoadManifestText(deep, "deep.yaml");
  ASSERT_EQ(r.errors.size(), 1u) << Dump(r.errors);
  EXPECT_NE(r.errors[0].message.find("nests deeper than 64"), std::string::npos)
      << r.errors[0].message;
  // Deeper than yaml-cpp itself allows: its own error, not a crash.
  const std::string deeper =
      std::string(100'000, '[') + std::string(100'000, ']') + "\n";
  const ManifestLoadResult d = LoadManifestText(deeper, "deeper.yaml");
  ASSERT_EQ(d.errors.size(), 1u) << Dump(d.errors);
  EXPECT_NE(d.errors[0].message.find("YAML syntax error"), std::string::npos)
      << d.errors[0].message;
}

TEST(ManifestLoaderTest, ScalarsFollowYamlCoreSchema) {
  constexpr char kNode[] = R"(apiVersion: gslb.ax.io/v1alpha1
kind: Node
metadata:
  name: a
  labels: {port: !!str 80, quoted: "true", country: NO, empty: ""}
spec:
  addresses: [192.0.2.1]
  weight: 0x10
  location: {lat: 1e1, lon: -.5}
  healthCheck: {port: 80, interval: 10, timeout: ~}
)";
  ManifestLoadResult r = LoadManifestText(kNode, "scalars.yaml");
  ASSERT_TRUE(r.errors.empty()) << Dump(r.errors);
  const Node& n = r.world.nodes[0];
  EXPECT_EQ(n.meta.labels.at("port"), "80");
  EXPECT_EQ(n.meta.labels.at("quoted"), "true");
  EXPECT_EQ(n.meta.labels.at("country"),
            "NO");  // YAML 1.2: no yes/no/on/off booleans
  EXPECT_EQ(n.meta.labels.at("empty"), "");
  EXPECT_EQ(n.weight, 16u);
  EXPECT_DOUBLE_EQ(n.location->lat, 10);
  EXPECT_DOUBLE_EQ(n.location->lon, -0.5);
  EXPECT_EQ(n.health_check->interval_ms, 10000u);
  EXPECT_EQ(n.health_check->timeout_ms, 2000u);  // null means "use the default"
}

TEST(ManifestLoaderTest, DirectoryIsSortedNonRecursiveAndCrossFile) {
  TempDir tmp;
  tmp.Write(
      "b-regions.yml",
      "apiVersion: gslb.ax.io/v1alpha1\nkind: Region\nmetadata: {name: r}\n"
      "spec: {nodes: [a, z], match: {default: true}}\n");
  tmp.Write(
      "a-nodes.yaml",
      "apiVersion: gslb.ax.io/v1alpha1\nkind: Node\nmetadata: {name: z}\nspec: "
      "{addresses: [192.0.2.9]}\n"
      "---\napiVersion: gslb.ax.io/v1alpha1\nkind: Node\nmetadata: {name: a}\n"
      "spec: {addresses: [192.0.2.1]}\n");
  tmp.Write(
      "c-domain.yaml",
      "apiVersion: gslb.ax.io/v1alpha1\nkind: Domain\nmetadata: {name: d}\n"
      "spec: {fqdn: example.test, zone: example.test}\n");
  tmp.Write("notes.txt", "not: yaml: at all: [");
  tmp.Write("sub/ignored.yaml", "kind: Bogus\n");
  ManifestLoadResult r = LoadManifestDir(tmp.path());
  ASSERT_TRUE(r.ok()) << Dump(r.errors);
  ASSERT_EQ(r.world.nodes.size(), 2u);
  EXPECT_EQ(r.world.nodes[0].meta.name, "z");
  EXPECT_THAT(r.world.nodes[0].meta.source, HasSubstr("a-nodes.yaml:1#1"));
  EXPECT_EQ(r.world.regions.size(), 1u);
  EXPECT_EQ(r.world.domains.size(), 1u);
}

TEST(ManifestLoaderTest, CollectsParseErrorsAcrossFilesAndSkipsValidationThen) {
  TempDir tmp;
  tmp.Write("a.yaml",
            "apiVersion: gslb.ax.io/v1alpha1\nkind: Node\nmetadata: {name: "
            "n}\nspec: {adress: [192.0.2.1]}\n");
  tmp.Write(
      "b.yaml",
      "apiVersion: gslb.ax.io/v1alpha1\nkind: Region\nmetadata: {name: r}\n"
      "spec: {nodes: [n], match: {countries: [USA]}}\n");
  ManifestLoadResult r = LoadManifestDir(tmp.path());
  // Region/r references the broken Node/n; that is not reported as "not
  // defined".
  ASSERT_EQ(r.errors.size(), 2u) << Dump(r.errors);
  EXPECT_THAT(r.errors[0].source, HasSubstr("a.yaml:1#1"));
  EXPECT_EQ(r.errors[0].field, "spec.adress");
  EXPECT_THAT(r.errors[1].source, HasSubstr("b.yaml:1#1"));
  EXPECT_EQ(r.errors[1].field, "spec.match.countries[0]");
}

TEST(ManifestLoaderTest, UnreadableInputsNameThePath) {
  TempDir tmp;
  const fs::path missing = tmp.path() / "missing.yaml";
  ManifestLoadResult file = LoadManifestFile(missing);
  ASSERT_EQ(file.errors.size(), 1u);
  EXPECT_EQ(file.errors[0].source, missing.generic_string());
  EXPECT_THAT(file.errors[0].message, HasSubstr("cannot read file"));

  ManifestLoadResult no_dir = LoadManifestDir(tmp.path() / "nope");
  ASSERT_EQ(no_dir.errors.size(), 1u);
  EXPECT_THAT(no_dir.errors[0].ToString(),
              HasSubstr("nope: cannot read directory"));

  ManifestLoadResult empty = LoadManifestDir(tmp.path());
  ASSERT_EQ(empty.errors.size(), 1u);
  EXPECT_THAT(empty.errors[0].message, HasSubstr("no *.yaml or *.yml files"));
}

TEST(ManifestLoaderTest, DocumentThatIsNotAMap) {
  ManifestLoadResult r = LoadManifestText("- just\n- a list\n", "x.yaml");
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].ToString(),
            "x.yaml:1#1: a manifest object must be a map, got a list");
}

}  // namespace
}  // namespace ax
