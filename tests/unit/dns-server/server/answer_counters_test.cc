// Answer counts by name across snapshot changes: a worker switching cells
// never makes a total go down, and cells of old snapshots fold by name.
#include "server/answer_counters.h"

#include <gtest/gtest.h>

#include "ops_world.h"

namespace ax::dns {
namespace {

using ax::testing::RegionIndex;
using testing::DomainIndex;
using testing::NodeIndex;
using testing::OpsWorld;
using testing::Serve;

// A decision for domain `domain` in region `region` picking node `node`.
ResponseInfo Decision(uint32_t domain, uint32_t region, uint32_t node) {
  ResponseInfo info;
  info.domain = domain;
  info.region = region;
  info.route = 0;
  info.decision.count = 1;
  info.decision.nodes[0] = node;
  return info;
}

TEST(AnswerCountersTest, TotalsSurviveSnapshotChanges) {
  const auto first = Serve(OpsWorld());
  const auto second = Serve(OpsWorld());  // same names, new state
  AnswerCounter worker;
  AnswerTotals totals;
  const std::vector<AnswerCounter*> workers = {&worker};
  const Snapshot& s0 = first->snapshot();
  const ResponseInfo east = Decision(
      DomainIndex(s0, "www"), RegionIndex(s0, "east"), NodeIndex(s0, "b"));
  ResponseInfo unclassified = east;
  unclassified.region = kNoIndex;
  worker.Count(first, east);
  worker.Count(first, east);
  AnswerSeries s = totals.Collect(workers);
  EXPECT_EQ((s.by_region[{"www", "east", "Region"}]), 2u);
  EXPECT_EQ((s.by_node[{"www", "b"}]), 2u);

  worker.Count(second, east);          // switches cells
  worker.Count(second, unclassified);  // the unclassified column
  s = totals.Collect(workers);
  EXPECT_EQ((s.by_region[{"www", "east", "Region"}]), 3u);
  EXPECT_EQ((s.by_node[{"www", "b"}]), 4u);
  // The unclassified column names no region; its route is rest's fallback.
  EXPECT_EQ(s.by_region.count({"www", "", "AllHealthy"}) +
                s.by_region.count({"www", "", "FallbackRegion"}),
            1u);
  // Collecting again changes nothing.
  EXPECT_EQ(totals.Collect(workers).by_node, s.by_node);
}

}  // namespace
}  // namespace ax::dns
