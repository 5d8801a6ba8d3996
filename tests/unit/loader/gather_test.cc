// GatherWorld: API objects -> World, leaving out by name what fails the
// parser or the cross-object checks, and what only breaks because of them.
#include "ax/gather.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api_objects.h"

namespace ax {
namespace {

using nlohmann::json;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

// Three nodes in two regions (south falls back to north), one Domain.
ApiObjects SmallCluster() {
  ApiObjects o;
  o.nodes = {testing::NodeObject("gz-01", "192.0.2.1"),
             testing::NodeObject("gz-02", "192.0.2.2"),
             testing::NodeObject("bj-01", "198.51.100.1")};
  o.regions = {testing::RegionObject("south", {"gz-01", "gz-02"}, {"north"}),
               testing::RegionObject("north", {"bj-01"})};
  o.regions[0]["spec"]["match"] = {{"countries", {"CN"}}};
  o.regions[1]["spec"]["match"] = {{"default", true}};
  o.domains = {testing::DomainObject("www")};
  return o;
}

TEST(GatherWorld, TakesEveryValidObject) {
  const GatheredWorld g = GatherWorld(SmallCluster());
  EXPECT_THAT(g.invalid, IsEmpty());
  EXPECT_EQ(g.world.nodes.size(), 3u);
  EXPECT_EQ(g.world.regions.size(), 2u);
  EXPECT_EQ(g.world.domains.size(), 1u);
}

// Leaving out the bad Node breaks the Region listing it, which breaks the
// Rule matching that Region: all three go, in rounds, the rest stays.
TEST(GatherWorld, LeavesOutWhatBreaksAndWhatDependsOnIt) {
  ApiObjects o = SmallCluster();
  o.nodes.push_back(testing::NodeObject("broken", "192.0.2.9",
                                        {{"healthCheck", {{"port", 0}}}}));
  o.regions.push_back(testing::RegionObject("west", {"broken"}));
  json rule = testing::RuleObject("west-only", "www", "Pin", "gz-01");
  rule["spec"]["match"] = {{"region", "west"}};
  o.rules.push_back(rule);
  const GatheredWorld g = GatherWorld(o);
  std::vector<std::string> invalid;
  for (const auto& [name, errors] : g.invalid) invalid.push_back(name);
  EXPECT_THAT(invalid,
              ElementsAre("Node/broken", "Region/west", "Rule/west-only"));
  EXPECT_EQ(g.invalid.at("Rule/west-only")[0].message,
            "Region \"west\" is not defined (it exists but is invalid, so it "
            "is left out)");
  EXPECT_EQ(g.world.nodes.size(), 3u);
  EXPECT_EQ(g.world.regions.size(), 2u);
  EXPECT_THAT(g.world.rules, IsEmpty());
  EXPECT_EQ(g.world.domains.size(), 1u);
}

}  // namespace
}  // namespace ax
