// TrackedListerWatcher (tracked_lister_watcher.h): state changes around the
// inner calls; the probe list before a watch only runs while not connected.
#include "ax/kube_runtime/tracked_lister_watcher.h"

namespace ax::kube {

TrackedListerWatcher::TrackedListerWatcher(
    std::unique_ptr<kube::ListerWatcher> inner, Callbacks callbacks)
    : inner_(std::move(inner)), callbacks_(std::move(callbacks)) {}

kube::Result<kube::ObjectList> TrackedListerWatcher::List(
    kube::CancelToken* cancel) {
  kube::Result<kube::ObjectList> list = inner_->List(cancel);
  if (list) {
    Succeeded();
  } else if (!list.error().IsCanceled()) {
    Failed(list.error());
  }
  return list;
}

kube::WatchOutcome TrackedListerWatcher::Watch(
    const kube::WatchRequest& request, const kube::WatchHandler& on_event) {
  if (!connected()) {
    const kube::Result<kube::ObjectList> probe = List(request.cancel);
    if (!probe) {
      kube::WatchOutcome failed;
      failed.end = probe.error().IsCanceled() ? kube::WatchEnd::kCanceled
                                              : kube::WatchEnd::kFailed;
      failed.resource_version = request.resource_version;
      failed.error = probe.error();
      return failed;
    }
  }
  kube::WatchOutcome outcome = inner_->Watch(request, on_event);
  if (outcome.end == kube::WatchEnd::kFailed) Failed(outcome.error);
  return outcome;
}

void TrackedListerWatcher::Succeeded() {
  if (state_.exchange(State::kConnected) != State::kConnected &&
      callbacks_.restored) {
    callbacks_.restored();
  }
}

void TrackedListerWatcher::Failed(const kube::Error& error) {
  if (state_.exchange(State::kLost) != State::kLost && callbacks_.lost) {
    callbacks_.lost(error);
  }
}

}  // namespace ax::kube
