// BoundedWorkers (bounded_workers.h): one mutex, one condition variable.
#include "ax/runtime/bounded_workers.h"

#include <algorithm>

namespace ax::runtime {

BoundedWorkers::BoundedWorkers(size_t threads, size_t max_queued)
    : max_queued_(max_queued) {
  for (size_t i = 0; i < std::max<size_t>(1, threads); ++i) {
    threads_.emplace_back([this] { Work(); });
  }
}

BoundedWorkers::~BoundedWorkers() { Shutdown(); }

void BoundedWorkers::Run(std::function<void()> task) {
  {
    std::lock_guard lock(mu_);
    if (!stopping_ && queue_.size() < max_queued_) {
      queue_.push_back(std::move(task));
      ready_.notify_one();
      return;
    }
  }
  ran_inline_.fetch_add(1);
  task();
}

void BoundedWorkers::Shutdown() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  ready_.notify_all();
  for (std::thread& t : threads_) {
    if (t.joinable()) t.join();
  }
}

void BoundedWorkers::Work() {
  while (true) {
    std::function<void()> task;
    {
      std::unique_lock lock(mu_);
      ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, and nothing left
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    task();
  }
}

}  // namespace ax::runtime
