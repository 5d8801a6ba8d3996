// Long-polling for a new route table (GET /v1/endpoints?wait=VERSION): a
// caller waits until the served version differs from the one it has, the
// timeout passes or the server stops. The store calls Notify() after each
// swap. Waiters are capped, because each holds an HTTP thread: past the cap
// a request is told to come back, so the rest of the API stays answerable.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>

namespace ax::dns {

enum class WatchResult : uint8_t {
  kChanged,   // the served version is no longer the caller's
  kTimedOut,  // still the caller's version
  kBusy,      // too many waiting already: retry shortly
  kClosed,    // the server is stopping
};

class VersionWatch {
 public:
  // `served` gives the version served now (0: none yet).
  VersionWatch(std::function<uint64_t()> served, size_t max_waiters);

  // A new state is served: wakes every waiter.
  void Notify();
  // Wakes every waiter with kClosed, and refuses new ones so.
  void Close();

  WatchResult WaitWhileServing(uint64_t version,
                               std::chrono::milliseconds timeout);
  // Waiting now, and refused (kBusy) so far: the metrics' view.
  size_t waiters() const;
  uint64_t refused() const;

 private:
  const std::function<uint64_t()> served_;
  const size_t max_waiters_;
  mutable std::mutex mu_;
  std::condition_variable changed_;
  size_t waiters_ = 0;
  uint64_t refused_ = 0;
  bool closed_ = false;
};

}  // namespace ax::dns
