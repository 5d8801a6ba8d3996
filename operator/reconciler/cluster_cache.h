// The operator's view of its namespace: one informer per gslb.ax.io kind and
// one for the route-table ConfigMaps (current and kept versions, by label),
// each marking the reconcile dirty on any change; Gather turns the caches
// into the plan's ObservedState. Reading only; writes are plan_applier.h's.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ax/controller/observed_state.h"
#include "ax/kube/client.h"
#include "ax/kube/informer.h"
#include "written_objects.h"

namespace ax::controller {

class ClusterCache {
 public:
  // `on_change` runs on an informer thread after every list and event;
  // `on_error` for failed lists and watches (logs), labelled by resource.
  ClusterCache(
      kube::Client& client, const std::string& ns,
      const std::string& route_table, std::function<void()> on_change,
      std::function<void(const std::string& resource, const kube::Error&)>
          on_error);
  ~ClusterCache();  // Stop()

  void Start();
  void Stop();

  // Every informer has listed once.
  bool Synced() const;

  // The cached objects, with our own recent writes where the cache has not
  // caught up (`written`), as the plan reads them.
  ObservedState Gather(int64_t now_ms, const PlanOptions& options,
                       WrittenObjects& written) const;

  // resource (domains, ..., probereports) -> watches re-established.
  std::map<std::string, uint64_t> WatchRestarts() const;

 private:
  const std::string route_table_;
  // kWatchedKinds order.
  std::vector<std::unique_ptr<kube::Informer>> kinds_;
  std::unique_ptr<kube::Informer> config_maps_;
};

}  // namespace ax::controller
