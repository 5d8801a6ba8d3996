// `--snapshot-configmap NAMESPACE/NAME`: the route-table ConfigMap read
// through the Kubernetes API. An informer watches exactly that object
// (fieldSelector metadata.name=NAME); each change is decoded with the
// operator's codec and loaded into the SnapshotStore, as FileSource does for
// a file: unchanged inputs are not reloaded, a corrupt ConfigMap is refused
// with the codec's error and the last good snapshot keeps serving. While the
// API is unreachable the informer retries with backoff; status() says so
// (the watch itself, its logs and metrics are api_watch.h's). In a member
// cluster the control plane stamps the ConfigMap's confirmation at every
// heartbeat without changing it: read here, not a reload.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "ax/kube/client.h"
#include "ax/kube_runtime/api_watch.h"
#include "server/snapshot_store.h"

namespace ax::dns {

struct KubeSourceOptions {
  // "": kube::LoadConfig's lookup ($KUBECONFIG, in-cluster, ~/.kube/config).
  std::string kubeconfig;
  std::string namespace_name;
  std::string name;
};

class KubeSource {
 public:
  // Reads the kube config and makes the client; null with `error` when the
  // config is unusable. Contacts no apiserver yet.
  static std::unique_ptr<KubeSource> Create(const KubeSourceOptions& options,
                                            SnapshotStore* store,
                                            std::string* error);
  // Watches through `lister_watcher`, which selects the ConfigMap (tests
  // pass a fake).
  KubeSource(std::unique_ptr<kube::ListerWatcher> lister_watcher,
             const KubeSourceOptions& options, SnapshotStore* store,
             kube::ReflectorOptions reflector = {});
  ~KubeSource();  // Stop()
  KubeSource(const KubeSource&) = delete;
  KubeSource& operator=(const KubeSource&) = delete;

  // Starts the informer's thread; the first load follows its first list.
  void Start();
  void Stop();

  kube::ApiWatchStatus status() const { return watch_->status(); }
  // In a member cluster: when the control plane last confirmed the
  // ConfigMap current (its gslb.ax.io/confirmed-at, unix ms); 0 when the
  // ConfigMap carries none (the control plane's own cluster).
  int64_t confirmed_at_ms() const { return confirmed_at_ms_.load(); }

 private:
  void OnChange();  // informer thread
  void Missing();   // informer thread

  const std::string ns_;
  const std::string name_;
  const std::string source_;  // "configmap:NS/NAME", for logs and the store
  SnapshotStore* const store_;
  std::unique_ptr<kube::Client> client_;  // outlives watch_ (Create)
  std::unique_ptr<kube::ApiWatch> watch_;

  // Informer thread only. What the last decode read (payloads and our
  // annotations), good or bad: a relist of the same object is no news.
  std::optional<nlohmann::json> last_inputs_;
  bool missing_ = false;
  std::atomic<int64_t> confirmed_at_ms_{0};
};

}  // namespace ax::dns
