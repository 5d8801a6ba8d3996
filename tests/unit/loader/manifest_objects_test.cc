// ReadManifestObjects: a directory as API objects by kind with where each was
// read; what is no object (no map, no or unknown kind, no name, a duplicate
// key) is a file-level error, a file whose YAML does not parse is named
// unreadable, and an object that is merely invalid is kept for GatherWorld.
#include "ax/manifest_objects.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "temp_dir.h"

namespace ax {
namespace {

namespace fs = std::filesystem;
using ax::testing::TempDir;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

}  // namespace

// How gtest prints an error (in a vector too).
void PrintTo(const ManifestError& e, std::ostream* os) { *os << e.ToString(); }

namespace {

TEST(ManifestObjectsTest, QuickstartReadsEveryObjectWithItsFile) {
  const fs::path dir = fs::path(AX_SOURCE_DIR) / "examples" / "quickstart";
  const ManifestObjects r = ReadManifestObjects(dir);
  ASSERT_TRUE(r.errors.empty()) << ::testing::PrintToString(r.errors);
  EXPECT_TRUE(r.unreadable_files.empty());
  EXPECT_EQ(r.objects.domains.size(), 2u);
  EXPECT_EQ(r.objects.regions.size(), 4u);
  EXPECT_EQ(r.objects.nodes.size(), 6u);
  EXPECT_EQ(r.objects.rules.size(), 1u);
  EXPECT_EQ(r.objects.canaries.size(), 1u);
  EXPECT_EQ(r.sources.size(), 14u);
  const ObjectSource& www = r.sources.at("Domain/www");
  EXPECT_EQ(www.file, (dir / "domains.yaml").generic_string());
  EXPECT_EQ(www.source, www.file + ":3#1");
  // As written: the API's shape, nothing added.
  EXPECT_EQ(r.objects.domains[0]["spec"]["maxAnswers"], 2);
  EXPECT_FALSE(r.objects.domains[0]["metadata"].contains("generation"));
  // Every document of the quickstart is a valid manifest, as the loader says.
  GatheredWorld gathered = GatherWorld(r.objects);
  EXPECT_TRUE(gathered.invalid.empty());
  EXPECT_EQ(gathered.world.nodes.size(), 6u);
}

TEST(ManifestObjectsTest, WhatIsNoObjectIsAFileErrorAndLeftOut) {
  TempDir tmp;
  tmp.Write("a.yaml", R"(apiVersion: gslb.ax.io/v1alpha1
kind: Domain
metadata: {name: www}
spec: {fqdn: www.example.test, zone: example.test, maxAnswers: -3}
---
just a string
---
apiVersion: gslb.ax.io/v1alpha1
metadata: {name: nokind}
---
apiVersion: gslb.ax.io/v1alpha1
kind: Widget
metadata: {name: w}
---
apiVersion: gslb.ax.io/v1alpha1
kind: Node
metadata: {labels: {a: b}}
---
apiVersion: gslb.ax.io/v1alpha1
kind: Node
metadata: {name: twice}
spec: {weight: 1, weight: 2}
)");
  tmp.Write("b.yaml", R"(apiVersion: v1
kind: List
items:
- apiVersion: gslb.ax.io/v1alpha1
  kind: Node
  metadata: {name: n1}
  spec: {addresses: [192.0.2.1]}
  status: {health: Up}
)");
  const ManifestObjects r = ReadManifestObjects(tmp.path());
  const std::string a = (tmp.path() / "a.yaml").generic_string();
  ASSERT_EQ(r.errors.size(), 5u) << ::testing::PrintToString(r.errors);
  EXPECT_EQ(r.errors[0].source, a + ":6#2");
  EXPECT_THAT(r.errors[0].message, HasSubstr("must be a map"));
  EXPECT_EQ(r.errors[1].field, "kind");
  EXPECT_EQ(r.errors[2].object, "Widget");
  EXPECT_THAT(r.errors[2].message, HasSubstr("unknown kind \"Widget\""));
  EXPECT_EQ(r.errors[3].object, "Node");
  EXPECT_EQ(r.errors[3].field, "metadata.name");
  EXPECT_EQ(r.errors[4].object, "Node/twice");
  EXPECT_THAT(r.errors[4].message, HasSubstr("duplicate key"));
  EXPECT_TRUE(r.unreadable_files.empty());

  // Invalid but an object: kept, for GatherWorld to leave out by name.
  ASSERT_EQ(r.objects.domains.size(), 1u);
  ASSERT_EQ(r.objects.nodes.size(), 1u);  // the List's item, with its status
  EXPECT_EQ(r.objects.nodes[0]["status"]["health"], "Up");
  EXPECT_EQ(r.sources.at("Node/n1").source,
            (tmp.path() / "b.yaml").generic_string() + ":4#1");
  const GatheredWorld gathered = GatherWorld(r.objects);
  EXPECT_TRUE(gathered.IsInvalid("Domain/www"));
}

TEST(ManifestObjectsTest, AFileThatDoesNotParseIsUnreadableNotEmpty) {
  TempDir tmp;
  tmp.Write("a.yaml", "kind: Node\nmetadata: {name: [\n");
  tmp.Write("b.yaml",
            "apiVersion: gslb.ax.io/v1alpha1\nkind: Rule\nmetadata: {name: "
            "r}\nspec: {}\n");
  const ManifestObjects r = ReadManifestObjects(tmp.path());
  ASSERT_EQ(r.errors.size(), 1u) << ::testing::PrintToString(r.errors);
  EXPECT_THAT(r.errors[0].message, HasSubstr("YAML syntax error"));
  EXPECT_THAT(r.unreadable_files,
              ElementsAre((tmp.path() / "a.yaml").generic_string()));
  EXPECT_EQ(r.objects.rules.size(), 1u);
}

TEST(ManifestObjectsTest, ADirectoryWithoutManifestsIsAnError) {
  TempDir tmp;
  tmp.Write("notes.txt", "hello");
  const ManifestObjects r = ReadManifestObjects(tmp.path());
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_THAT(r.errors[0].message, HasSubstr("no *.yaml or *.yml files"));
  EXPECT_EQ(ReadManifestObjects(tmp.path() / "missing").errors.size(), 1u);
}

TEST(ManifestObjectsTest, ObjectsOfKindNamesTheList) {
  ApiObjects objects;
  for (std::string_view kind : kManifestKinds) {
    ASSERT_NE(ObjectsOfKind(objects, kind), nullptr) << kind;
  }
  EXPECT_EQ(ObjectsOfKind(objects, "Canary"), &objects.canaries);
  EXPECT_EQ(ObjectsOfKind(objects, "ProbeReport"), nullptr);
}

}  // namespace
}  // namespace ax
