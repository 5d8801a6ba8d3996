// ax-probe as one object: the probe engine over the Nodes of a watched
// manifest directory or of the Kubernetes API (--nodes-api), the report
// writer thread (on a health change at once, else every heartbeat; to stdout
// or a file and/or through the Kubernetes API), the metrics and the HTTP
// endpoint (/metrics, /healthz, /readyz). main() builds it from the config;
// tests may run it in process. Deciding health across vantages is not here
// (core quorum.h).
#pragma once

#include <prometheus/metric_family.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "ax/runtime/dir_watcher.h"
#include "ax/runtime/http_listener.h"
#include "ax/runtime/net.h"
#include "engine/engine.h"
#include "metrics/probe_metrics.h"
#include "sidecar/api_nodes.h"
#include "sidecar/api_report.h"
#include "sidecar/config.h"
#include "sidecar/report_output.h"
#include "sidecar/served_snapshot.h"

namespace ax::probe {

class ProbeSidecar {
 public:
  ProbeSidecar(SidecarConfig config, uint64_t seed);
  ~ProbeSidecar();  // Stop()
  ProbeSidecar(const ProbeSidecar&) = delete;
  ProbeSidecar& operator=(const ProbeSidecar&) = delete;

  // Starts the engine (fails on a bad CA bundle), the node source (a broken
  // directory or an unreachable API is logged, not fatal: the source keeps
  // trying; an unusable kube config is fatal), the report writer and HTTP (a
  // bind failure is fatal).
  bool Start(std::string* error);
  // Stops HTTP, the watcher, the engine and the writer; idempotent.
  void Stop();

  // Latches true once a node set loaded and every node has a verdict.
  bool Ready() const;
  const runtime::Endpoint& http_address() const { return http_.bound(); }

 private:
  void Reload();                            // watcher thread (and Start)
  void OnProbe(const ProbeEvent& e);        // engine thread
  void ReportLoop();                        // reporter thread
  void Deliver(const ProbeReport& report);  // reporter thread
  // The node set of `world` becomes what is probed and reported; on the
  // watcher's or the API source's thread.
  void Probe(const World& world, const std::string& source);
  prometheus::MetricFamily WritesFamily() const;
  void Poke();
  void Route();

  const SidecarConfig config_;
  const uint64_t seed_;
  ProbeMetrics metrics_;
  const ReportOutput output_;
  std::unique_ptr<ApiReportWriter> api_;  // null: no --report-api
  ServedSnapshotReader served_;           // --served-from; the report loop's
  // Report writes by destination (output, api) and result (ok, error).
  std::atomic<uint64_t> writes_[2][2]{};
  std::unique_ptr<ProbeEngine> engine_;
  std::unique_ptr<runtime::DirWatcher> watcher_;  // --manifests
  std::unique_ptr<ApiNodeSource> api_nodes_;      // --nodes-api
  runtime::HttpListener http_;

  mutable std::mutex mu_;
  std::condition_variable wake_;
  bool poked_ = false;
  bool stopping_ = false;
  bool loaded_ = false;             // a node set loaded at least once
  std::vector<std::string> nodes_;  // targeted now, sorted
  mutable std::atomic<bool> ready_{false};
  std::thread reporter_;
};

}  // namespace ax::probe
