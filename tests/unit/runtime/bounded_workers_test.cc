// BoundedWorkers: tasks run on the pool while the queue has room; once it is
// full the caller runs the task itself; shutdown runs what is queued.
#include "ax/runtime/bounded_workers.h"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <thread>

namespace ax::runtime {
namespace {

TEST(BoundedWorkersTest, AFullQueueMakesTheCallerRunTheTask) {
  BoundedWorkers workers(1, 2);
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::promise<void> started;
  // The one thread is held; two tasks wait; the fourth has no room.
  workers.Run([&] {
    started.set_value();
    released.wait();
  });
  started.get_future().wait();
  std::atomic<int> queued_ran{0};
  workers.Run([&] { ++queued_ran; });
  workers.Run([&] { ++queued_ran; });
  std::thread::id ran_on;
  workers.Run([&] { ran_on = std::this_thread::get_id(); });
  EXPECT_EQ(ran_on, std::this_thread::get_id());
  EXPECT_EQ(workers.ran_inline(), 1u);
  EXPECT_EQ(queued_ran.load(), 0);
  release.set_value();
  workers.Shutdown();
  EXPECT_EQ(queued_ran.load(), 2);  // what was queued still ran
}

TEST(BoundedWorkersTest, TasksRunOnThePoolWhileThereIsRoom) {
  BoundedWorkers workers(2, 8);
  std::atomic<int> ran{0};
  std::atomic<bool> on_caller{false};
  const std::thread::id caller = std::this_thread::get_id();
  for (int i = 0; i < 4; ++i) {
    workers.Run([&] {
      if (std::this_thread::get_id() == caller) on_caller = true;
      ++ran;
    });
  }
  workers.Shutdown();
  EXPECT_EQ(ran.load(), 4);
  EXPECT_FALSE(on_caller.load());
  EXPECT_EQ(workers.ran_inline(), 0u);
}

TEST(BoundedWorkersTest, AfterShutdownTheCallerRunsIt) {
  BoundedWorkers workers(1, 4);
  workers.Shutdown();
  bool ran = false;
  workers.Run([&] { ran = true; });
  EXPECT_TRUE(ran);
  workers.Shutdown();  // again: nothing to do
}

}  // namespace
}  // namespace ax::runtime
