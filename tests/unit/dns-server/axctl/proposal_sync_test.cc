// SyncProposals: the suggester writes only its own unapproved proposals (and
// its own expired ones, proposed afresh), deletes its own unapproved ones
// that are no longer proposed, and leaves every other GeoOverride alone.
// YamlDocument: what it prints reads back as the same object.
#include "axctl/proposal_sync.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include "axctl/yaml_out.h"

namespace ax {
namespace {

using nlohmann::json;
using ::testing::ElementsAre;

constexpr int64_t kNow = 1'796'169'600;  // 2026-12-02T00:00:00Z

GeoOverride Proposal(const std::string& name) {
  GeoOverride o;
  o.meta.name = name;
  o.region = "south-mobile";
  o.approved = false;
  return o;
}

json Listed(const std::string& name, bool ours, std::optional<bool> approved,
            const std::string& expires = "") {
  json o = {{"metadata", {{"name", name}, {"resourceVersion", "rv-" + name}}},
            {"spec", {{"region", "r"}}}};
  if (ours) o["metadata"]["labels"][kProposedByLabel] = kProposedBy;
  if (approved) o["spec"]["approved"] = *approved;
  if (!expires.empty()) o["spec"]["expiresAt"] = expires;
  return o;
}

// "name@resourceVersion" of each write ("name@" for a create).
std::vector<std::string> Names(const std::vector<ProposalWrite>& v) {
  std::vector<std::string> out;
  for (const ProposalWrite& w : v) {
    out.push_back(w.proposal.meta.name + "@" + w.resource_version);
  }
  return out;
}

TEST(ProposalSyncTest, WritesOnlyItsOwnUnapprovedProposals) {
  const std::vector<json> existing = {
      Listed("geo-own-open", true, false),
      Listed("geo-own-approved", true, true),
      Listed("geo-own-expired", true, true, "2026-12-01T00:00:00Z"),
      Listed("geo-own-stale", true, false),
      Listed("geo-own-approved-gone", true, std::nullopt),
      Listed("geo-hand-written", false, false),
  };
  const ProposalSync sync =
      SyncProposals({Proposal("geo-new"), Proposal("geo-own-open"),
                     Proposal("geo-own-approved"), Proposal("geo-own-expired"),
                     Proposal("geo-hand-written")},
                    existing, kNow);
  // Updates are conditional on the object listed; a new one is created.
  EXPECT_THAT(Names(sync.apply),
              ElementsAre("geo-new@", "geo-own-open@rv-geo-own-open",
                          "geo-own-expired@rv-geo-own-expired"));
  // Not proposed any more: only the unapproved one goes; an approved one
  // (spec.approved absent counts as approved) is a reviewer's to remove.
  EXPECT_THAT(sync.remove, ElementsAre("geo-own-stale"));
  EXPECT_THAT(sync.left,
              ElementsAre("geo-own-approved: approved and in force",
                          "geo-hand-written: a GeoOverride of that name "
                          "exists and is not a proposal of "
                          "axctl-geo-suggest"));
}

TEST(ProposalSyncTest, NothingListedCreatesEveryProposal) {
  const ProposalSync sync =
      SyncProposals({Proposal("geo-a"), Proposal("geo-b")}, {}, kNow);
  EXPECT_THAT(Names(sync.apply), ElementsAre("geo-a@", "geo-b@"));
  EXPECT_TRUE(sync.remove.empty());
  EXPECT_TRUE(sync.left.empty());
}

// YAML -> JSON as the tests read it back: scalars by their YAML type.
json ToJson(const YAML::Node& n) {
  if (n.IsMap()) {
    json out = json::object();
    for (const auto& kv : n)
      out[kv.first.as<std::string>()] = ToJson(kv.second);
    return out;
  }
  if (n.IsSequence()) {
    json out = json::array();
    for (const auto& item : n) out.push_back(ToJson(item));
    return out;
  }
  return json::parse(n.Tag() == "!" ? json(n.as<std::string>()).dump()
                                    : n.as<std::string>());
}

TEST(YamlOutTest, BlockYamlReadsBackAsTheSameObject) {
  const nlohmann::ordered_json object = {
      {"apiVersion", "gslb.ax.io/v1alpha1"},
      {"kind", "MeasurementReport"},
      {"metadata", {{"name", "gz-01"}}},
      {"spec",
       {{"from", "2026-12-01T00:00:00.000Z"},
        {"empty", nlohmann::ordered_json::array()},
        {"prefixes",
         {{{"prefix", "10.0.0.0/24"},
           {"nodes",
            {{{"node", "gz-01"}, {"first", 3}, {"counts", {1, 0, 2}}}}}},
          {{"prefix", "10.0.1.0/24"},
           {"nodes",
            {{{"node", "bj-01"}, {"first", 0}, {"counts", {5}}}}}}}}}}};
  const std::string text = YamlDocument(object);
  EXPECT_EQ(text.rfind("---\n", 0), 0u);
  EXPECT_NE(text.find("  prefixes:\n  - prefix: \"10.0.0.0/24\"\n    nodes:\n"
                      "    - node: \"gz-01\"\n      first: 3\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(ToJson(YAML::Load(text)), json::parse(object.dump()));
}

}  // namespace
}  // namespace ax
