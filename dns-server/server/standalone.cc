// StandaloneSource: manifests -> World -> BuildSnapshot -> store. Node status
// is "Up by adminState" (the builder drops Drain/Disabled nodes itself) until
// an in-process prober supplies real verdicts.
#include "server/standalone.h"

#include <chrono>
#include <exception>

#include "ax/build_snapshot.h"
#include "ax/manifest_loader.h"
#include "server/clock.h"
#include "server/log.h"

namespace ax::dns {
namespace {

StatusMap AssumeUp(const World& world) {
  StatusMap status;
  for (const Node& n : world.nodes) status[n.meta.name].health = Health::kUp;
  return status;
}

}  // namespace

StandaloneSource::StandaloneSource(std::filesystem::path dir,
                                   SnapshotStore* store,
                                   StandaloneOptions options)
    : dir_(std::move(dir)), store_(store), options_(options) {}

bool StandaloneSource::Start(std::string* error) {
  const bool ok = Reconcile(true, error);
  watcher_ = std::make_unique<DirWatcher>(
      dir_, WatchOptions{options_.debounce, options_.rebuild_interval},
      [this](WatchEvent event) {
        std::string ignored;  // logged and recorded where it happened
        Reconcile(event == WatchEvent::kChanged, &ignored);
      });
  return ok;
}

void StandaloneSource::Stop() { watcher_.reset(); }

bool StandaloneSource::ReadManifests(std::string* error) {
  ManifestLoadResult loaded = LoadManifestDir(dir_);
  if (loaded.ok()) {
    world_ = std::move(loaded.world);
    return true;
  }
  for (const ManifestError& e : loaded.errors) {
    Log(LogLevel::kError, "manifest error",
        {{"dir", dir_.string()},
         {"source", e.source},
         {"object", e.object},
         {"field", e.field},
         {"error", e.message}});
  }
  *error = std::to_string(loaded.errors.size()) + " manifest error(s) in " +
           dir_.string() + ", first: " + loaded.errors.front().ToString();
  Log(LogLevel::kWarn,
      world_ ? "manifests broken, serving the last good world"
             : "manifests broken, nothing to serve yet",
      {{"dir", dir_.string()}, {"errors", loaded.errors.size()}});
  store_->RecordError(*error);
  return false;
}

bool StandaloneSource::Reconcile(bool reread, std::string* error) {
  const bool fresh = reread && ReadManifests(error);
  // An operator rolled back: keep that until the manifests change for good.
  if (!fresh && store_->Status().rolled_back) return true;
  if (!world_) return false;

  const std::shared_ptr<const ServingState> current = store_->Current();
  const Snapshot* previous = current ? &current->snapshot() : nullptr;
  auto snapshot = std::make_shared<Snapshot>();
  try {
    *snapshot = BuildSnapshot(
        *world_, AssumeUp(*world_), previous,
        BuildOptions{.now_ms = WallMs(), .version = store_->NextVersion()});
  } catch (const std::exception& e) {
    *error = std::string("building the snapshot failed: ") + e.what();
    Log(LogLevel::kError, "snapshot build failed",
        {{"dir", dir_.string()}, {"error", *error}});
    store_->RecordError(*error);
    return false;
  }
  // Periodic rebuilds of an unchanged world publish nothing, so the kept
  // history stays worth rolling back to.
  if (previous && previous->content_hash == snapshot->content_hash) {
    return true;
  }
  return store_->Load(std::shared_ptr<const Snapshot>(std::move(snapshot)),
                      "standalone:" + dir_.string(),
                      error) != LoadOutcome::kRejected;
}

}  // namespace ax::dns
