// `--standalone DIR`: the reconcile loop in one process. Loads the YAML
// manifests from DIR, builds the route-table snapshot (every node Up until
// probing lands), hands it to the store, re-reads DIR when it changes and
// rebuilds periodically so rule expiry and failover windows advance. A broken
// edit keeps serving the last good world, with every error logged.
#pragma once

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "ax/model.h"
#include "engine/engine.h"
#include "metrics/probe_metrics.h"
#include "server/dir_watcher.h"
#include "server/snapshot_store.h"

namespace ax::dns {

struct StandaloneOptions {
  std::chrono::milliseconds debounce{200};
  std::chrono::milliseconds rebuild_interval{10'000};
  // Probe the nodes that declare a healthCheck, in process (one vantage),
  // and build with their verdicts: a health change rebuilds at once. Nodes
  // without a check, or not probed yet, count Up by adminState.
  bool probe = false;
  probe::EngineConfig probe_engine;
  // Probe tokens: the file <token_dir>/<healthCheck.tokenSecretRef>.
  std::filesystem::path token_dir;
  // The vantage label of the probe metrics (the server's identity).
  std::string vantage;
};

class StandaloneSource {
 public:
  StandaloneSource(std::filesystem::path dir, SnapshotStore* store,
                   StandaloneOptions options = {});

  // Loads and publishes once now, then watches DIR. Returns false (with
  // `error`) when the first load failed; the watcher runs regardless.
  bool Start(std::string* error);
  void Stop();

  // The probe metrics (ax_probe_*, ax_node_health_state) for /metrics; null
  // when probing is off. Lives as long as this source.
  const prometheus::Collectable* probe_metrics() const {
    return probe_metrics_.get();
  }

 private:
  // Re-reads the manifests when `reread`, then rebuilds from the last good
  // world and publishes if the content changed. Watcher thread only (after
  // Start). Returns false with `error` when nothing could be published.
  bool Reconcile(bool reread, std::string* error);
  bool ReadManifests(std::string* error);

  // Node status for the build: probe verdicts over "Up by adminState".
  StatusMap Statuses() const;
  // Hands the world's checks to the prober.
  void UpdateProbeTargets();

  const std::filesystem::path dir_;
  SnapshotStore* const store_;
  const StandaloneOptions options_;
  std::unique_ptr<probe::ProbeMetrics> probe_metrics_;  // null: probing off
  std::unique_ptr<probe::ProbeEngine> prober_;          // null: probing off
  std::optional<World> world_;  // the last world that loaded without errors
  std::unique_ptr<DirWatcher> watcher_;
};

}  // namespace ax::dns
