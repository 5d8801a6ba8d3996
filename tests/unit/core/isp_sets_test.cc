// ISP sets: the built-in table (generated from the pinned data) merged with
// declared IspSets, the lookup by name, and which criterion a client met.
#include "ax/isp_sets.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

namespace ax {
namespace {

using ::testing::ElementsAre;
using ::testing::IsSupersetOf;

IspSet Declared(std::string name, std::vector<uint32_t> asns,
                std::vector<std::string> names = {}, bool replace = false) {
  IspSet s;
  s.meta.name = std::move(name);
  s.asns = std::move(asns);
  s.names = std::move(names);
  s.replace_builtin = replace;
  return s;
}

std::vector<std::string> Names(const std::vector<SnapshotIspSet>& sets) {
  std::vector<std::string> out;
  for (const SnapshotIspSet& s : sets) out.push_back(s.name);
  return out;
}

// The carriers' backbones and the provincial networks a hand-written list
// tends to miss are all there, and nothing from the carriers' subsidiaries
// abroad (scripts/geo/isp_set_rules.csv says why each is in or out).
TEST(IspSetsTest, BuiltinSetsHoldTheCarriersNetworks) {
  const std::vector<SnapshotIspSet> sets = ResolveIspSets({});
  EXPECT_THAT(Names(sets),
              ElementsAre("cernet", "mobile", "telecom", "unicom"));
  EXPECT_EQ(BuiltinIspSetNames(), Names(sets));
  const SnapshotIspSet* telecom = FindIspSet(sets, "telecom");
  ASSERT_NE(telecom, nullptr);
  // ChinaNet, CN2, Shanghai, Beijing (China Networks Inter-Exchange), Jiangsu.
  EXPECT_THAT(telecom->asns,
              IsSupersetOf({4134u, 4809u, 4812u, 4847u, 23650u}));
  // China Telecom Americas and Europe serve no Chinese clients.
  EXPECT_FALSE(
      std::binary_search(telecom->asns.begin(), telecom->asns.end(), 36678u));
  EXPECT_THAT(FindIspSet(sets, "unicom")->asns,
              IsSupersetOf({4837u, 4808u, 9929u, 17621u, 17816u}));
  EXPECT_THAT(FindIspSet(sets, "mobile")->asns,
              IsSupersetOf({9808u, 24400u, 56040u, 56048u, 9394u}));
  EXPECT_THAT(FindIspSet(sets, "cernet")->asns, IsSupersetOf({4538u}));
  for (const SnapshotIspSet& s : sets) {
    SCOPED_TRACE(s.name);
    EXPECT_TRUE(std::is_sorted(s.asns.begin(), s.asns.end()));
    EXPECT_EQ(std::adjacent_find(s.asns.begin(), s.asns.end()), s.asns.end());
    EXPECT_FALSE(s.names.empty());
  }
  // No ASN in two carriers' sets.
  std::vector<uint32_t> all;
  for (const SnapshotIspSet& s : sets) {
    all.insert(all.end(), s.asns.begin(), s.asns.end());
  }
  std::sort(all.begin(), all.end());
  EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end());
}

TEST(IspSetsTest, DeclaredSetsExtendReplaceAndAdd) {
  const size_t builtin_mobile =
      FindIspSet(ResolveIspSets({}), "mobile")->asns.size();
  const std::vector<SnapshotIspSet> sets = ResolveIspSets({
      Declared("mobile", {64512, 9808}, {"CMCC"}),
      Declared("telecom", {65001, 65000, 65001, 0}, {"CT", "CT"}, true),
      Declared("idc", {}, {"IDC"}),
      Declared("idc", {65010}),  // a second "idc": Validate reports it
  });
  EXPECT_THAT(Names(sets),
              ElementsAre("cernet", "idc", "mobile", "telecom", "unicom"));
  const SnapshotIspSet* mobile = FindIspSet(sets, "mobile");
  EXPECT_EQ(mobile->asns.size(), builtin_mobile + 1);  // 9808 was there
  EXPECT_TRUE(
      std::binary_search(mobile->asns.begin(), mobile->asns.end(), 64512u));
  EXPECT_THAT(mobile->names, IsSupersetOf({"CMCC", "\u79fb\u52a8"}));
  // Replaced: only what was declared, sorted, unique, without AS 0.
  EXPECT_EQ(*FindIspSet(sets, "telecom"),
            (SnapshotIspSet{"telecom", {65000, 65001}, {"CT"}}));
  EXPECT_EQ(*FindIspSet(sets, "idc"), (SnapshotIspSet{"idc", {}, {"IDC"}}));
  EXPECT_EQ(FindIspSet(sets, "cn2"), nullptr);
}

TEST(IspSetsTest, MatchIspSaysWhichCriterionMatched) {
  const std::vector<SnapshotIspSet> sets = {
      {"mobile", {9808}, {"\u79fb\u52a8"}}, {"telecom", {4134}, {}}};
  const RegionMatch match{.asns = {9929}, .isps = {"telecom", "mobile"}};
  const auto own = MatchIsp(match, sets, {.asn = 9929});
  ASSERT_TRUE(own.has_value());
  EXPECT_EQ(own->set, nullptr);
  const auto by_asn = MatchIsp(match, sets, {.asn = 9808});
  ASSERT_TRUE(by_asn && by_asn->set);
  EXPECT_EQ(by_asn->set->name, "mobile");
  EXPECT_FALSE(by_asn->by_name);
  const auto by_name = MatchIsp(match, sets, {.isp = "\u79fb\u52a8"});
  ASSERT_TRUE(by_name && by_name->set);
  EXPECT_EQ(by_name->set->name, "mobile");
  EXPECT_TRUE(by_name->by_name);
  EXPECT_FALSE(MatchIsp(match, sets, {.asn = 4837}).has_value());
  EXPECT_FALSE(MatchIsp(match, sets, {}).has_value());
  EXPECT_FALSE(MatchIsp({.isps = {"unknown"}}, sets, {.asn = 4134}));
}

}  // namespace
}  // namespace ax
