// SnapshotStore: swaps only valid snapshots, keeps the last good one with the
// error recorded, never lets versions go backwards, rolls back on command.
#include "server/snapshot_store.h"

#include <gtest/gtest.h>

#include "server_test_support.h"

namespace ax::dns {
namespace {

using testing::MakeSnapshot;
using testing::MakeSnapshotJson;

uint64_t ServedVersion(const SnapshotStore& store) {
  const auto state = store.Current();
  return state ? state->snapshot().version : 0;
}

TEST(SnapshotStoreTest, EmptyUntilTheFirstLoad) {
  SnapshotStore store({});
  EXPECT_EQ(store.Current(), nullptr);
  EXPECT_FALSE(store.Status().current.has_value());
  EXPECT_EQ(store.NextVersion(), 1u);
}

TEST(SnapshotStoreTest, ValidDocumentSwapsIn) {
  SnapshotStore store({});
  EXPECT_EQ(store.Load(MakeSnapshotJson(1), "test"), LoadOutcome::kSwapped);
  EXPECT_EQ(ServedVersion(store), 1u);
  EXPECT_EQ(store.Load(MakeSnapshotJson(2, 1), "test"), LoadOutcome::kSwapped);
  EXPECT_EQ(ServedVersion(store), 2u);
  const StoreStatus s = store.Status();
  ASSERT_TRUE(s.current.has_value());
  EXPECT_EQ(s.current->version, 2u);
  EXPECT_EQ(s.current->source, "test");
  EXPECT_EQ(s.current->content_hash, MakeSnapshot(2, 1).content_hash);
  EXPECT_GT(s.current->loaded_at_ms, 0);
  EXPECT_EQ(s.loads, 2u);
  EXPECT_EQ(s.errors, 0u);
  EXPECT_EQ(store.NextVersion(), 3u);
}

TEST(SnapshotStoreTest, SameVersionAndContentIsUnchanged) {
  SnapshotStore store({});
  ASSERT_EQ(store.Load(MakeSnapshotJson(1), "test"), LoadOutcome::kSwapped);
  EXPECT_EQ(store.Load(MakeSnapshotJson(1), "test"), LoadOutcome::kUnchanged);
  EXPECT_EQ(store.Status().loads, 1u);
  EXPECT_EQ(store.Status().errors, 0u);
}

TEST(SnapshotStoreTest, CorruptDocumentKeepsLastGoodAndRecordsError) {
  SnapshotStore store({});
  ASSERT_EQ(store.Load(MakeSnapshotJson(1), "test"), LoadOutcome::kSwapped);
  const auto before = store.Current();
  std::string error;
  EXPECT_EQ(store.Load("{\"formatVersion\": 1, trunc", "file:x", &error),
            LoadOutcome::kRejected);
  EXPECT_NE(error.find("file:x"), std::string::npos) << error;
  EXPECT_EQ(store.Current(), before);
  const StoreStatus s = store.Status();
  EXPECT_EQ(s.errors, 1u);
  EXPECT_EQ(s.last_error, error);
  EXPECT_GT(s.last_error_at_ms, 0);
}

TEST(SnapshotStoreTest, TamperedHashIsRejected) {
  SnapshotStore store({});
  std::string json = MakeSnapshotJson(1);
  const size_t at = json.find("fnv1a64:") + 8;
  json[at] = json[at] == '0' ? '1' : '0';
  EXPECT_EQ(store.Load(json, "test"), LoadOutcome::kRejected);
  EXPECT_EQ(store.Current(), nullptr);
}

TEST(SnapshotStoreTest, VersionsNeverGoBackwards) {
  SnapshotStore store({});
  ASSERT_EQ(store.Load(MakeSnapshotJson(5), "test"), LoadOutcome::kSwapped);
  std::string error;
  EXPECT_EQ(store.Load(MakeSnapshotJson(4, 1), "test", &error),
            LoadOutcome::kRejected);
  EXPECT_NE(error.find("not above 5"), std::string::npos) << error;
  // Same version, other content: also not a step forward.
  EXPECT_EQ(store.Load(MakeSnapshotJson(5, 1), "test"), LoadOutcome::kRejected);
  EXPECT_EQ(ServedVersion(store), 5u);
  EXPECT_EQ(store.Status().errors, 2u);
}

TEST(SnapshotStoreTest, InProcessSnapshotIsValidatedToo) {
  SnapshotStore store({});
  auto bad = std::make_shared<Snapshot>(MakeSnapshot(1));
  bad->domains[0].routes[0] = 999;  // route index out of range
  std::string error;
  EXPECT_EQ(store.Load(std::shared_ptr<const Snapshot>(bad), "built", &error),
            LoadOutcome::kRejected);
  EXPECT_FALSE(error.empty());
  EXPECT_EQ(
      store.Load(std::make_shared<const Snapshot>(MakeSnapshot(1)), "built"),
      LoadOutcome::kSwapped);
}

TEST(SnapshotStoreTest, RollbackToPreviousAndToVersion) {
  SnapshotStore store({});
  for (uint64_t v = 1; v <= 3; ++v) {
    ASSERT_EQ(store.Load(MakeSnapshotJson(v, static_cast<int>(v)), "test"),
              LoadOutcome::kSwapped);
  }
  std::string error;
  ASSERT_TRUE(store.Rollback(&error)) << error;
  EXPECT_EQ(ServedVersion(store), 2u);
  EXPECT_TRUE(store.Status().rolled_back);
  ASSERT_TRUE(store.Rollback(&error)) << error;
  EXPECT_EQ(ServedVersion(store), 1u);
  EXPECT_FALSE(store.Rollback(&error));  // nothing older is kept
  ASSERT_TRUE(store.Rollback(3, &error)) << error;
  EXPECT_EQ(ServedVersion(store), 3u);
  EXPECT_FALSE(store.Rollback(42, &error));
  EXPECT_NE(error.find("kept: 1, 2, 3"), std::string::npos) << error;
}

TEST(SnapshotStoreTest, LoadsAfterRollbackMustExceedTheHighestVersion) {
  SnapshotStore store({});
  ASSERT_EQ(store.Load(MakeSnapshotJson(1), "test"), LoadOutcome::kSwapped);
  ASSERT_EQ(store.Load(MakeSnapshotJson(2, 2), "test"), LoadOutcome::kSwapped);
  std::string error;
  ASSERT_TRUE(store.Rollback(1, &error));
  // The rolled-back-from document again is not news: the rollback stands.
  EXPECT_EQ(store.Load(MakeSnapshotJson(2, 2), "test"), LoadOutcome::kRejected);
  EXPECT_EQ(ServedVersion(store), 1u);
  EXPECT_EQ(store.NextVersion(), 3u);
  EXPECT_EQ(store.Load(MakeSnapshotJson(3, 3), "test"), LoadOutcome::kSwapped);
  EXPECT_FALSE(store.Status().rolled_back);
}

TEST(SnapshotStoreTest, KeepsOnlyTheLastN) {
  SnapshotStore store({}, 2);
  for (uint64_t v = 1; v <= 3; ++v) {
    ASSERT_EQ(store.Load(MakeSnapshotJson(v, static_cast<int>(v)), "test"),
              LoadOutcome::kSwapped);
  }
  const StoreStatus s = store.Status();
  ASSERT_EQ(s.history.size(), 2u);
  EXPECT_EQ(s.history[0].version, 2u);
  std::string error;
  EXPECT_FALSE(store.Rollback(1, &error));
  EXPECT_TRUE(store.Rollback(2, &error));
}

TEST(SnapshotStoreTest, ReadersSeeWholeStatesWhileLoading) {
  SnapshotStore store({});
  ASSERT_EQ(store.Load(MakeSnapshotJson(1), "test"), LoadOutcome::kSwapped);
  std::atomic<bool> done{false};
  std::thread reader([&] {
    while (!done) {
      const auto state = store.Current();
      ASSERT_NE(state, nullptr);
      ASSERT_FALSE(state->snapshot().domains.empty());
    }
  });
  for (uint64_t v = 2; v <= 40; ++v) {
    store.Load(MakeSnapshotJson(v, static_cast<int>(v % 7)), "test");
  }
  done = true;
  reader.join();
  EXPECT_EQ(ServedVersion(store), 40u);
}

}  // namespace
}  // namespace ax::dns
