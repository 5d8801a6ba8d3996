// Answer counts by name across snapshot changes: a worker switching cells
// never makes a total go down, cells of old snapshots fold by name, and a
// worker only ever takes prepared cells (it allocates none).
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
  worker.Prepare(first);
  worker.Count(first, east);
  worker.Count(first, east);
  AnswerSeries s = totals.Collect(workers);
  EXPECT_EQ((s.by_region[{"www", "east", "Region"}]), 2u);
  EXPECT_EQ((s.by_node[{"www", "b"}]), 2u);

  worker.Prepare(second);
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
  EXPECT_TRUE(s.spilled.empty());

  // A spilled decision counts in its region's column and as spilled there.
  ResponseInfo spilled = east;
  spilled.decision.spilled = true;
  worker.Count(second, spilled);
  s = totals.Collect(workers);
  EXPECT_EQ((s.by_region[{"www", "east", "Region"}]), 4u);
  EXPECT_EQ((s.spilled[{"www", "east"}]), 1u);
}

class PreparedCellsTest : public ::testing::Test {
 protected:
  uint64_t Answers() {
    return totals_.Collect({&worker_}).by_node[{"www", "b"}];
  }
  void Count(const std::shared_ptr<const ServingState>& state) {
    const Snapshot& s = state->snapshot();
    worker_.Count(state, Decision(DomainIndex(s, "www"), RegionIndex(s, "east"),
                                  NodeIndex(s, "b")));
  }

  const std::shared_ptr<const ServingState> first_ = Serve(OpsWorld());
  const std::shared_ptr<const ServingState> second_ = Serve(OpsWorld());
  const std::shared_ptr<const ServingState> third_ = Serve(OpsWorld());
  AnswerCounter worker_;
  AnswerTotals totals_;
};

TEST_F(PreparedCellsTest, AStateNobodyPreparedIsNotCounted) {
  Count(first_);
  EXPECT_EQ(Answers(), 0u);
  worker_.Prepare(first_);
  Count(first_);
  EXPECT_EQ(Answers(), 1u);
}

TEST_F(PreparedCellsTest, CellsOfANewerStateWaitForIt) {
  worker_.Prepare(first_);
  Count(first_);
  // A query still on `second` while `third` is prepared: not counted, and
  // third's cells stay for the worker's next query on it.
  worker_.Prepare(third_);
  Count(second_);
  EXPECT_EQ(Answers(), 1u);
  Count(third_);
  Count(third_);
  EXPECT_EQ(Answers(), 3u);
}

TEST_F(PreparedCellsTest, OnlyTheLatestPreparedCellsAreKept) {
  worker_.Prepare(first_);
  worker_.Prepare(second_);  // first's cells, never taken, are freed
  Count(first_);
  EXPECT_EQ(Answers(), 0u);
  Count(second_);
  EXPECT_EQ(Answers(), 1u);
}

}  // namespace
}  // namespace ax::dns
