// Stopping work promptly from another thread: a CancelToken is handed to the
// requests and waits of one owner (an informer, a leader elector); Cancel()
// aborts the requests running with it (closing their connections) and wakes
// its waits. One-shot: a canceled token stays canceled.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <vector>

namespace httplib {
class ClientImpl;
}

namespace ax::kube {

class CancelToken {
 public:
  CancelToken() = default;
  CancelToken(const CancelToken&) = delete;
  CancelToken& operator=(const CancelToken&) = delete;

  // Cancels, shuts down the connection of every request running with this
  // token, and returns once none runs any more. A connection still being
  // set up cannot be interrupted; Cancel waits for it (at most the
  // connect timeout) and shuts it down then.
  void Cancel();
  bool canceled() const { return canceled_.load(std::memory_order_acquire); }

  // Sleeps `duration`; false when canceled before or during the wait.
  bool WaitFor(std::chrono::steady_clock::duration duration);

 private:
  friend class ConnectionLease;  // registers running requests (transport.h)

  // false (and nothing registered) when already canceled.
  bool Enter(httplib::ClientImpl* connection);
  void Leave(httplib::ClientImpl* connection);

  std::atomic<bool> canceled_{false};
  std::mutex mu_;
  std::condition_variable changed_;
  std::vector<httplib::ClientImpl*> running_;
};

}  // namespace ax::kube
