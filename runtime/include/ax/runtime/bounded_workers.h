// A fixed pool of threads with a bounded queue, for the HTTP servers: a
// connection waits in the queue only while it is short; when it is full the
// thread that hands work over (the acceptor) does that one itself, and so
// accepts nothing more until it is done. Then the kernel's listen backlog,
// not this process, holds the excess: memory and threads stay fixed however
// many clients come (cpp-httplib's own pool queues without bound).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace ax::runtime {

class BoundedWorkers {
 public:
  BoundedWorkers(size_t threads, size_t max_queued);
  ~BoundedWorkers();  // Shutdown()
  BoundedWorkers(const BoundedWorkers&) = delete;
  BoundedWorkers& operator=(const BoundedWorkers&) = delete;

  // Queues `task`, or runs it on the calling thread when `max_queued` wait
  // already.
  void Run(std::function<void()> task);

  // Runs what is queued, then joins the threads. Idempotent.
  void Shutdown();

  // Tasks the caller ran itself because the queue was full.
  uint64_t ran_inline() const { return ran_inline_.load(); }

 private:
  void Work();

  const size_t max_queued_;
  std::mutex mu_;
  std::condition_variable ready_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
  std::atomic<uint64_t> ran_inline_{0};
  std::vector<std::thread> threads_;
};

}  // namespace ax::runtime
