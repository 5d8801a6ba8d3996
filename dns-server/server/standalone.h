// `--standalone DIR`: the reconcile loop in one process, through the same
// pure plan as the operator (standalone_pipeline.h), with the I/O around it:
// reading DIR, probing in process, the store, logs, metrics, and when to plan
// again. Deciding anything is the plan's.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "ax/model.h"
#include "ax/runtime/dir_watcher.h"
#include "ax/signals/metric_reader.h"
#include "engine/engine.h"
#include "metrics/probe_metrics.h"
#include "server/snapshot_store.h"
#include "server/standalone_metrics.h"
#include "server/standalone_pipeline.h"
#include "server/wake_timer.h"

namespace ax::dns {

struct StandaloneOptions {
  std::chrono::milliseconds debounce{200};
  std::chrono::milliseconds rebuild_interval{10'000};
  // Probe the nodes that declare a healthCheck, in process (one vantage),
  // and plan with their verdicts: a health change plans again at once.
  // Nodes without a check, or not probed yet, count Up by adminState.
  bool probe = false;
  probe::EngineConfig probe_engine;
  // Probe tokens: the file <token_dir>/<healthCheck.tokenSecretRef>.
  std::filesystem::path token_dir;
  // The vantage: the probe metrics' label (the server's identity) and the
  // name of the report the plan reads ("standalone" when empty).
  std::string vantage;
  // --probe-reports: a directory of other vantages' ProbeReport files
  // (report_files.h), planned with the in-process vantage's; empty: none.
  std::filesystem::path probe_reports_dir;
  // Route-table versions the plan keeps (--snapshot-history).
  size_t snapshot_history = 5;
  // The wall clock the plans run on (unix ms); default the system clock.
  // Tests inject one to step a canary through its pauses.
  std::function<int64_t()> wall_ms;
};

// Reads DIR's manifests as API objects, probes the nodes that declare a
// healthCheck (one vantage, standalone_report.h), plans, serves the plan's
// route table from the store and keeps its statuses in memory (logged when
// a condition or phase changes; ax_dns_standalone_* metrics). Reads the
// Canaries' Prometheus metrics the plan asks for (signals/). Plans again
// when DIR changes, a verdict changes, a metric is read, the plan asks (a
// canary step, a Rule expiry) and every rebuild interval. A bad object is left
// out by name and logged; a directory that yields no valid Domain keeps the
// last good snapshot, as does an operator's rollback until the manifests
// change.
class StandaloneSource {
 public:
  StandaloneSource(std::filesystem::path dir, SnapshotStore* store,
                   StandaloneOptions options = {});
  ~StandaloneSource() { Stop(); }

  // Reads, plans and publishes once now, then watches DIR. Returns false
  // (with `error`) when nothing could be served; the watcher runs regardless.
  bool Start(std::string* error);
  void Stop();

  // The watcher's completed passes (changes, ticks, pokes) since Start: a
  // caller can wait for the next one to see what a pass did not do.
  uint64_t Passes() const { return passes_.load(std::memory_order_acquire); }

  // The probe metrics (ax_probe_*, ax_node_health_state) for /metrics; null
  // when probing is off. Lives as long as this source.
  const prometheus::Collectable* probe_metrics() const {
    return probe_metrics_.get();
  }
  // ax_dns_standalone_* (standalone_metrics.h).
  const prometheus::Collectable* plan_metrics() const { return &metrics_; }

 private:
  // Re-reads DIR when `reread`, plans, and serves what the plan publishes.
  // Watcher thread only (after Start). False with `error` when nothing new
  // could be served.
  bool Reconcile(bool reread, std::string* error);
  void ReadManifests();
  // Serves the pass's new route table, if any, then commits the pass and
  // logs it. False with `error` when it was refused.
  bool Apply(const StandalonePass& pass, std::string* error);
  // Reads the report files (probe_reports_dir), logging what changed in
  // their errors. Start, then the report watcher's thread.
  void ReadReports();
  // Hands the world's checks to the prober.
  void UpdateProbeTargets(const World& world);
  // Runs a pass soon on the watcher thread (or once it exists).
  void Poke();
  // Whether `event` carries an error rate that moved past the Node status'
  // tolerance from the last one kept for its node (then kept): a Canary's
  // analysis may turn on it. Prober's thread only.
  bool ErrorRateMoved(const probe::ProbeEvent& event);

  const std::filesystem::path dir_;
  SnapshotStore* const store_;
  const StandaloneOptions options_;
  StandalonePipeline pipeline_;
  StandaloneMetrics metrics_;
  // Of the last read: what was no object, and the nodes the report covers.
  std::vector<ManifestError> file_errors_;
  std::vector<std::string> checked_nodes_;
  std::unique_ptr<probe::ProbeMetrics> probe_metrics_;    // null: probing off
  std::unique_ptr<probe::ProbeEngine> prober_;            // null: probing off
  std::unique_ptr<WakeTimer> wake_;                       // the plan's requeue
  std::unique_ptr<signals::MetricReader> metric_reader_;  // Canary metrics
  std::map<std::string, double> poked_error_rates_;       // ErrorRateMoved's
  std::mutex watcher_mu_;  // guards watcher_ and poke_pending_
  std::unique_ptr<runtime::DirWatcher> watcher_;
  bool poke_pending_ = false;  // poked before the watcher existed
  std::atomic<uint64_t> passes_{0};
  std::mutex reports_mu_;  // guards file_reports_, report_errors_
  std::vector<nlohmann::json> file_reports_;
  std::vector<std::string> report_errors_;
  std::unique_ptr<runtime::DirWatcher> reports_watcher_;
};

}  // namespace ax::dns
