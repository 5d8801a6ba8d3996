// StandaloneSource: manifests -> World -> BuildSnapshot -> store. Node status
// comes from the in-process prober where a node declares a healthCheck and has
// a verdict, else "Up by adminState" (the builder drops Drain/Disabled nodes
// itself). A verdict change is logged and pokes the watcher thread to rebuild
// at once.
#include "server/standalone.h"

#include <chrono>
#include <exception>
#include <vector>

#include "ax/build_snapshot.h"
#include "ax/manifest_loader.h"
#include "engine/world_targets.h"
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
  if (options_.probe) {
    probe_metrics_ = std::make_unique<probe::ProbeMetrics>(options_.vantage);
    prober_ = std::make_unique<probe::ProbeEngine>(
        options_.probe_engine, [this](const probe::ProbeEvent& event) {
          probe_metrics_->Observe(event);
          if (!event.transition.changed) return;
          // Rare (thresholds damp flapping) and what an operator asks first
          // when answers change: which node, which way, and why.
          Log(LogLevel::kInfo, "node health changed",
              {{"node", event.node},
               {"from", HealthName(event.transition.from)},
               {"to", HealthName(event.transition.to)},
               {"error", event.result.error}});
          // watcher_ exists: the prober starts after it.
          watcher_->Poke();
        });
    probe_metrics_->SetEngine(prober_.get());
  }
  const bool ok = Reconcile(true, error);
  watcher_ = std::make_unique<DirWatcher>(
      dir_, WatchOptions{options_.debounce, options_.rebuild_interval},
      [this](WatchEvent event) {
        std::string ignored;  // logged and recorded where it happened
        Reconcile(event == WatchEvent::kChanged, &ignored);
      });
  std::string probe_error;
  if (prober_ && !prober_->Start(&probe_error)) {
    // Serving without verdicts beats not serving: nodes count Up.
    Log(LogLevel::kError, "prober failed to start; nodes count Up",
        {{"error", probe_error}});
    probe_metrics_->SetEngine(nullptr);
    prober_.reset();
  }
  return ok;
}

void StandaloneSource::Stop() {
  if (prober_) prober_->Stop();  // no more pokes
  watcher_.reset();              // no more reconciles
  if (probe_metrics_) probe_metrics_->SetEngine(nullptr);
  prober_.reset();
}

StatusMap StandaloneSource::Statuses() const {
  StatusMap status = AssumeUp(*world_);
  if (!prober_) return status;
  for (auto& [node, probed] : prober_->Statuses()) {
    const auto it = status.find(node);
    if (it != status.end() && probed.health != Health::kUnknown) {
      it->second = std::move(probed);
    }
  }
  return status;
}

void StandaloneSource::UpdateProbeTargets() {
  if (!prober_) return;
  probe::WorldTargets targets =
      probe::ProbeTargetsForWorld(*world_, options_.token_dir);
  for (const probe::TokenProblem& p : targets.unreadable_tokens) {
    Log(LogLevel::kError, "probe token unreadable; probing without it",
        {{"node", p.node}, {"file", p.file}});
  }
  prober_->SetTargets(std::move(targets.targets));
}

bool StandaloneSource::ReadManifests(std::string* error) {
  ManifestLoadResult loaded = LoadManifestDir(dir_);
  if (loaded.ok()) {
    world_ = std::move(loaded.world);
    UpdateProbeTargets();
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
        *world_, Statuses(), previous,
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
