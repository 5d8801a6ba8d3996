// --nodes-api: the Nodes to probe, read from the Kubernetes API instead of a
// manifest directory. One informer lists and watches the gslb.ax.io Nodes of
// a namespace (or, in a member cluster, the one probe-targets ConfigMap its
// control plane writes: core's probe_targets.h) (kube::ApiWatch: relist after
// 410, backoff, connection state); once a burst of changes settles (the
// debounce) every object goes through the manifest parser and checks, exactly
// as the operator gathers them (GatherWorld, loader/), so a broken Node is left
// out and logged by name while the others are probed. The World is handed on
// only when a Node's spec changed (status writes are no news); while the API is
// unreachable nothing is handed on and the last set keeps being probed. What to
// probe in a World and the probing are the sidecar's.
#pragma once

#include <prometheus/metric_family.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "ax/gather.h"
#include "ax/kube/client.h"
#include "ax/kube_runtime/api_watch.h"

namespace ax::probe {

struct ApiNodesOptions {
  std::string kubeconfig;      // "": kube::LoadConfig's lookup
  std::string namespace_name;  // "": the config's (the pod's) namespace
  std::string configmap;       // "": Node objects; else this probe-targets map
  std::chrono::milliseconds debounce{200};
};

class ApiNodeSource {
 public:
  // Receives every new set: the valid Nodes (world) and the rejected ones
  // with their errors (already logged), on the source's own thread.
  using OnNodes = std::function<void(const GatheredWorld&)>;

  // Reads the kube config and makes the client; null with `error` when the
  // config is unusable. Contacts no apiserver yet.
  static std::unique_ptr<ApiNodeSource> Create(const ApiNodesOptions& options,
                                               OnNodes on_nodes,
                                               std::string* error);
  // Watches through `lister_watcher`, which lists the Nodes of
  // `namespace_name`, or the probe-targets ConfigMap `configmap` (tests
  // pass one over a fake apiserver).
  ApiNodeSource(std::unique_ptr<kube::ListerWatcher> lister_watcher,
                std::string namespace_name, std::chrono::milliseconds debounce,
                OnNodes on_nodes, kube::ReflectorOptions reflector = {},
                std::string configmap = {});
  ~ApiNodeSource();  // Stop()
  ApiNodeSource(const ApiNodeSource&) = delete;
  ApiNodeSource& operator=(const ApiNodeSource&) = delete;

  void Start();
  // Prompt; no callback runs after it returns.
  void Stop();

  const std::string& namespace_name() const { return namespace_; }
  kube::ApiWatchStatus status() const { return watch_->status(); }
  // Nodes left out of the last set handed on (parse or validation errors).
  size_t rejected() const { return rejected_.load(); }
  // ax_probe_nodes_source_*: the connection and the rejected Nodes.
  std::vector<prometheus::MetricFamily> Families() const;

 private:
  void MarkDirty();  // informer thread
  void Run();        // the debounce thread
  void Gather();     // the debounce thread
  // The Node objects listed, or those of the probe-targets ConfigMap;
  // false (logged) when that ConfigMap is missing or unreadable.
  bool NodeObjects(std::vector<nlohmann::json>* nodes);

  const std::string namespace_;
  const std::string configmap_;
  const std::chrono::milliseconds debounce_;
  const OnNodes on_nodes_;
  std::unique_ptr<kube::Client> client_;  // outlives watch_ (Create)
  std::unique_ptr<kube::ApiWatch> watch_;
  std::atomic<size_t> rejected_{0};

  std::mutex mu_;
  std::condition_variable wake_;
  bool dirty_ = false;
  bool stopping_ = false;
  std::thread thread_;

  // Debounce thread only: name -> spec of the last objects gathered, valid
  // or not, so the same set (a relist, a status write) is not handed on or
  // reported again.
  std::optional<nlohmann::json> last_specs_;
};

}  // namespace ax::probe
