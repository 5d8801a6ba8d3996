// One collection watched through the Kubernetes API by a source that feeds a
// running process (ax-dns's route-table ConfigMap, ax-probe's Nodes): an
// informer over a TrackedListerWatcher, the log lines an operator needs when
// the apiserver goes away and comes back (once each, not per retry), and the
// status its metrics show. What the objects mean is the owner's business.
#pragma once

#include <prometheus/metric_family.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ax/kube/informer.h"
#include "ax/kube_runtime/tracked_lister_watcher.h"

namespace ax::kube {

struct ApiWatchStatus {
  bool connected = false;  // the last list or watch reached the apiserver
  uint64_t relists = 0;    // lists after the first (a watch expired: 410)
  uint64_t watch_restarts = 0;
  uint64_t failures = 0;  // failed lists and watches
};

// How the owner's log lines read: "<name> cannot reach the Kubernetes API;
// <keeping> and retrying", each with the field `key`=`value`.
struct ApiWatchLabels {
  std::string name;     // "snapshot source"
  std::string keeping;  // "serving the last snapshot"
  const char* key;      // "configmap"
  std::string value;    // "configmap:ax/rt"
};

class ApiWatch {
 public:
  // `on_change` runs on the informer's thread after each list and event.
  ApiWatch(std::unique_ptr<kube::ListerWatcher> lister_watcher,
           ApiWatchLabels labels, std::function<void()> on_change,
           kube::ReflectorOptions reflector = {});
  ApiWatch(const ApiWatch&) = delete;
  ApiWatch& operator=(const ApiWatch&) = delete;

  void Start() { informer_->Start(); }
  void Stop() { informer_->Stop(); }

  const kube::Informer& informer() const { return *informer_; }
  ApiWatchStatus status() const;

 private:
  const ApiWatchLabels labels_;
  TrackedListerWatcher* link_ = nullptr;  // owned by informer_
  std::unique_ptr<kube::Informer> informer_;
};

// PREFIX_connected, PREFIX_errors_total, PREFIX_relists_total and
// PREFIX_watch_restarts_total; `what` names the watched objects in the help.
std::vector<prometheus::MetricFamily> ApiWatchFamilies(
    const std::string& prefix, const std::string& what,
    const ApiWatchStatus& status);

}  // namespace ax::kube
