// VersionWatch: a waiter returns as soon as the served version changes (a
// Notify after the swap), on its timeout otherwise, at once when the version
// is already another; past the cap a waiter is refused; Close releases all.
#include "server/version_watch.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>
#include <vector>

#include "wait_for.h"

namespace ax::dns {
namespace {

using namespace std::chrono_literals;
using ::ax::testing::WaitFor;

TEST(VersionWatchTest, ReturnsWhenTheServedVersionChanges) {
  std::atomic<uint64_t> served = 7;
  VersionWatch watch([&] { return served.load(); }, 4);
  EXPECT_EQ(watch.WaitWhileServing(6, 10s), WatchResult::kChanged);  // at once
  EXPECT_EQ(watch.WaitWhileServing(7, 20ms), WatchResult::kTimedOut);

  auto waiting = std::async(std::launch::async,
                            [&] { return watch.WaitWhileServing(7, 30s); });
  ASSERT_TRUE(WaitFor([&] { return watch.waiters() == 1; }));
  watch.Notify();  // a wake-up without a new version: still waiting
  EXPECT_EQ(waiting.wait_for(50ms), std::future_status::timeout);
  served = 8;
  watch.Notify();
  ASSERT_EQ(waiting.wait_for(5s), std::future_status::ready);
  EXPECT_EQ(waiting.get(), WatchResult::kChanged);
  EXPECT_EQ(watch.waiters(), 0u);
}

TEST(VersionWatchTest, CapsWaitersAndCloseReleasesThem) {
  std::atomic<uint64_t> served = 1;
  VersionWatch watch([&] { return served.load(); }, 2);
  std::vector<std::future<WatchResult>> waiting;
  for (int i = 0; i < 2; ++i) {
    waiting.push_back(std::async(
        std::launch::async, [&] { return watch.WaitWhileServing(1, 30s); }));
  }
  ASSERT_TRUE(WaitFor([&] { return watch.waiters() == 2; }));
  EXPECT_EQ(watch.refused(), 0u);
  EXPECT_EQ(watch.WaitWhileServing(1, 30s), WatchResult::kBusy);
  EXPECT_EQ(watch.refused(), 1u);
  watch.Close();
  for (auto& w : waiting) {
    ASSERT_EQ(w.wait_for(5s), std::future_status::ready);
    EXPECT_EQ(w.get(), WatchResult::kClosed);
  }
  EXPECT_EQ(watch.WaitWhileServing(1, 30s), WatchResult::kClosed);
}

}  // namespace
}  // namespace ax::dns
