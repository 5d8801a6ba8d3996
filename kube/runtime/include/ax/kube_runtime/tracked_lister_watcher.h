// Whether a list+watch loop reaches the apiserver, judged from its own calls:
// a ListerWatcher decorator that says "lost" on a failed list or watch and
// "restored" on the next list that succeeds. After a failure the reflector
// only resumes its watch, which stays silent until an event arrives, so the
// first watch after a loss is preceded by a list of the same selection: the
// probe that notices the apiserver is back. A 410 (watch expired) is no loss.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>

#include "ax/kube/reflector.h"

namespace ax::kube {

class TrackedListerWatcher : public kube::ListerWatcher {
 public:
  // Called on the loop's thread at each change of state; the first outcome
  // counts as a change (from "not known yet").
  struct Callbacks {
    std::function<void(const kube::Error&)> lost;
    std::function<void()> restored;
  };

  TrackedListerWatcher(std::unique_ptr<kube::ListerWatcher> inner,
                       Callbacks callbacks);

  kube::Result<kube::ObjectList> List(kube::CancelToken* cancel) override;
  kube::WatchOutcome Watch(const kube::WatchRequest& request,
                           const kube::WatchHandler& on_event) override;

  // Any thread.
  bool connected() const {
    return state_.load(std::memory_order_acquire) == State::kConnected;
  }

 private:
  enum class State : uint8_t { kUnknown, kConnected, kLost };

  void Succeeded();
  void Failed(const kube::Error& error);

  const std::unique_ptr<kube::ListerWatcher> inner_;
  const Callbacks callbacks_;
  std::atomic<State> state_{State::kUnknown};
};

}  // namespace ax::kube
