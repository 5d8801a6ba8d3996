// Cross-thread cancellation of requests and waits (cancel.h).
#include "ax/kube/cancel.h"

#include <httplib.h>

#include <algorithm>

namespace ax::kube {

void CancelToken::Cancel() {
  std::unique_lock lock(mu_);
  canceled_.store(true, std::memory_order_release);
  changed_.notify_all();
  // httplib's stop() shuts down a socket a request is blocked on, which is
  // thread-safe, but does nothing while the request is between taking the
  // connection and opening its socket: repeat until every request has left.
  while (!running_.empty()) {
    for (httplib::ClientImpl* connection : running_) connection->stop();
    changed_.wait_for(lock, std::chrono::milliseconds(20));
  }
}

bool CancelToken::WaitFor(std::chrono::steady_clock::duration duration) {
  std::unique_lock lock(mu_);
  return !changed_.wait_for(lock, duration, [this] { return canceled(); });
}

bool CancelToken::Enter(httplib::ClientImpl* connection) {
  std::lock_guard lock(mu_);
  if (canceled()) return false;
  running_.push_back(connection);
  return true;
}

void CancelToken::Leave(httplib::ClientImpl* connection) {
  std::lock_guard lock(mu_);
  running_.erase(std::find(running_.begin(), running_.end(), connection));
  changed_.notify_all();
}

}  // namespace ax::kube
