// The informer's thread, cache updates and change signal (informer.h).
#include "ax/kube/informer.h"

namespace ax::kube {

Informer::Informer(Client& client, Resource collection,
                   ListWatchOptions list_watch, InformerOptions options)
    : Informer(NewListerWatcher(client, std::move(collection),
                                std::move(list_watch)),
               std::move(options)) {}

Informer::Informer(std::unique_ptr<ListerWatcher> lister_watcher,
                   InformerOptions options)
    : lister_watcher_(std::move(lister_watcher)),
      on_change_(std::move(options.on_change)),
      reflector_(*lister_watcher_, *this, std::move(options.reflector)) {}

Informer::~Informer() { Stop(); }

void Informer::Start() {
  if (thread_.joinable() || cancel_.canceled()) return;
  thread_ = std::thread([this] { reflector_.Run(cancel_); });
}

void Informer::Stop() {
  cancel_.Cancel();
  if (thread_.joinable()) thread_.join();
}

bool Informer::WaitForSync(std::chrono::milliseconds timeout) {
  std::unique_lock lock(sync_mu_);
  return sync_cv_.wait_for(lock, timeout, [this] { return HasSynced(); });
}

void Informer::Replace(std::vector<nlohmann::json> items,
                       std::string resource_version) {
  cache_.Replace(std::move(items), std::move(resource_version));
  if (!synced_.load(std::memory_order_acquire)) {
    std::lock_guard lock(sync_mu_);
    synced_.store(true, std::memory_order_release);
    sync_cv_.notify_all();
  }
  Changed();
}

void Informer::Apply(const WatchEvent& event) {
  cache_.Apply(event);
  Changed();
}

void Informer::Changed() {
  if (on_change_) on_change_();
}

}  // namespace ax::kube
