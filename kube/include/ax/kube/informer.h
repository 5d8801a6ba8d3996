// An informer: a reflector (list+watch, relist, backoff) on its own thread
// keeping an ObjectCache of one collection, and one OnChange callback for
// level-based reconcilers: it only says "something changed", the reader looks
// at List()/Get() for the state. HasSynced() after the first list. Counters
// for metrics. No per-event handlers and no work queue: those are the
// consumer's.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string_view>
#include <thread>
#include <vector>

#include "ax/kube/cancel.h"
#include "ax/kube/client.h"
#include "ax/kube/object_cache.h"
#include "ax/kube/reflector.h"

namespace ax::kube {

struct InformerOptions {
  // Called on the informer's thread after each list and each watch event:
  // mark work dirty and return quickly (the next event waits for it).
  std::function<void()> on_change;
  ReflectorOptions reflector;
};

class Informer : private ReflectorSink {
 public:
  // Watches `collection` (namespace "" for all namespaces) through `client`,
  // which must outlive the informer.
  Informer(Client& client, Resource collection, ListWatchOptions list_watch,
           InformerOptions options);
  Informer(std::unique_ptr<ListerWatcher> lister_watcher,
           InformerOptions options);
  ~Informer() override;  // Stop()
  Informer(const Informer&) = delete;
  Informer& operator=(const Informer&) = delete;

  // Starts the thread. Once: a stopped informer stays stopped.
  void Start();
  // Cancels the running request or wait and joins the thread; prompt.
  void Stop();

  // True from the end of the first list on.
  bool HasSynced() const { return synced_.load(std::memory_order_acquire); }
  // False on timeout.
  bool WaitForSync(std::chrono::milliseconds timeout);

  std::vector<ObjectPtr> List() const { return cache_.List(); }
  CacheView View() const { return cache_.View(); }
  ObjectPtr Get(std::string_view ns, std::string_view name) const {
    return cache_.Get(ns, name);
  }
  ReflectorCounters counters() const { return reflector_.counters(); }

 private:
  void Replace(std::vector<nlohmann::json> items,
               std::string resource_version) override;
  void Apply(const WatchEvent& event) override;
  void Changed();

  const std::unique_ptr<ListerWatcher> lister_watcher_;
  const std::function<void()> on_change_;
  ObjectCache cache_;
  Reflector reflector_;
  CancelToken cancel_;
  std::thread thread_;

  std::atomic<bool> synced_{false};
  std::mutex sync_mu_;
  std::condition_variable sync_cv_;
};

}  // namespace ax::kube
