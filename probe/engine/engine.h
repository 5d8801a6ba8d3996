// The probe engine: one thread that runs the Scheduler and many
// ProbeConnections on one epoll set, feeds every result through a per-node
// HealthTracker (fail 3 / rise 5, from the node's HealthCheck) and hands
// each result to a sink. HTTPS nodes resume their last TLS session
// (TlsSessionCache, bounded by tls_session_max_age_ms). Thread-safe surface:
// SetTargets, Snapshot, Statuses, Counters. What the results become
// (ProbeReports, metrics, in-process reconcile) belongs to the embedding
// program, not here.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "ax/health.h"
#include "ax/node_status.h"
#include "ax/rng.h"
#include "ax/runtime/net.h"
#include "engine/http_request.h"
#include "engine/outcome.h"
#include "engine/probe_connection.h"
#include "engine/scheduler.h"
#include "engine/target.h"
#include "engine/tls.h"
#include "engine/tls_sessions.h"

namespace ax::probe {

struct EngineConfig {
  SchedulerConfig scheduler;
  TlsOptions tls;
  std::string token_header = std::string(kDefaultTokenHeader);
  size_t max_body_bytes = 64 * 1024;
  uint64_t seed = 1;  // jitter; the program seeds it, tests fix it
  // How long an HTTPS node's TLS session is resumed after the full handshake
  // that verified its certificate. Resumption spares the probe a full
  // handshake (most of an HTTPS probe's CPU) but verifies nothing, so this
  // bounds how long a replaced, expired or revoked certificate can go
  // unnoticed; 5 min still resumes ~99% of probes at a 2 s interval. Any
  // failed probe also forces a full handshake. 0: never resume.
  int64_t tls_session_max_age_ms = int64_t{5} * 60 * 1000;
  // The clock of ProbeResult::at_ms and of TLS session ages (default:
  // system clock). Forced strictly increasing per node so the tracker never
  // drops a result as a replay.
  std::function<int64_t()> wall_ms;
};

// One finished probe, as the sink sees it.
struct ProbeEvent {
  std::string node;
  IpAddress address;
  ProbeProtocol protocol = ProbeProtocol::kTcp;
  ProbeOutcome outcome;              // phases, error kind, status, load
  ProbeResult result;                // what the tracker observed
  Transition transition;             // the tracker's verdict change, if any
  Health health = Health::kUnknown;  // the verdict after this result
};

// Called on the engine thread after each probe, outside the engine's locks:
// it may call Snapshot/SetTargets, must not call Stop, and should be quick
// (every other probe waits while it runs).
using ProbeSink = std::function<void(const ProbeEvent&)>;

// What the engine knows about one node, for status pages and metrics.
struct NodeProbeState {
  std::string node;
  IpAddress address;
  ProbeProtocol protocol = ProbeProtocol::kTcp;
  NodeStatus status;  // health verdict, smoothed latency, load, changed-at
  std::optional<ProbeOutcome> last;  // the latest finished probe
  int64_t last_at_ms = 0;
  uint64_t probes = 0;                    // finished probes (timeouts included)
  uint64_t failures = 0;                  // of which failed
  std::map<ProbeError, uint64_t> errors;  // failures by kind
  uint32_t state_changes = 0;  // every verdict change, the first included
  uint32_t transitions = 0;    // Up <-> Down only (flaps)
  uint32_t consecutive_successes = 0;
  uint32_t consecutive_failures = 0;
  bool suppressed = false;  // held Down by flap damping
  double flap_penalty = 0;
};

struct EngineCounters {
  uint64_t started = 0;    // connections opened (at most one per node/period)
  uint64_t finished = 0;   // results recorded
  uint64_t timeouts = 0;   // of which ended by the deadline
  uint64_t discarded = 0;  // in flight when their node was removed/changed
  uint64_t tls_handshakes = 0;  // completed TLS handshakes
  uint64_t tls_resumed = 0;     // of which resumed the node's session
};

class ProbeEngine {
 public:
  explicit ProbeEngine(EngineConfig config, ProbeSink sink = nullptr);
  ~ProbeEngine();  // Stop()
  ProbeEngine(const ProbeEngine&) = delete;
  ProbeEngine& operator=(const ProbeEngine&) = delete;

  // Creates the TLS context, epoll set and thread. False with `error` set if
  // the CA bundle cannot be loaded or a descriptor cannot be created. Once
  // per engine: after Stop, make a new one.
  bool Start(std::string* error);
  // Stops the thread and closes every connection; no sink calls after.
  void Stop();

  // Replaces the whole target set (node names are the identity; the first
  // of duplicate names wins). New nodes are probed at once (within the
  // cold-start spread); removed nodes stop now and an in-flight result is
  // discarded; a node whose address, check or token changed restarts as new
  // but keeps its health history. Either way its TLS session is dropped.
  // Applied on the engine thread promptly.
  void SetTargets(std::vector<ProbeTarget> targets);

  std::map<std::string, NodeProbeState> Snapshot() const;
  // Node -> status for the snapshot builder (standalone ax-dns).
  StatusMap Statuses() const;
  EngineCounters Counters() const;

 private:
  struct NodeState {
    HealthTracker tracker;
    HealthPolicy policy;
    NodeProbeState view;
  };

  void Loop();
  void ApplyPendingTargets(int64_t now_ms);
  void HandleExpired(int64_t now_ms);
  void LaunchDue(int64_t now_ms);
  void OnConnectionEvent(uint64_t id);
  // Drops a connection without a result.
  void Cancel(uint64_t id);
  // Removes the connection from epoll and the table, records its outcome.
  void FinishConnection(uint64_t id, bool scheduler_already_done);
  // Keeps an HTTPS node's session after a success, drops it after a failure.
  void KeepOrDropSession(const ProbeConnection& conn);
  void Record(const ProbeTarget& target, const ProbeOutcome& outcome);
  void Watch(uint64_t id, ProbeConnection& conn, bool add);

  EngineConfig config_;
  ProbeSink sink_;
  ConnectionOptions conn_options_;
  SslCtxPtr tls_;
  runtime::Fd epoll_;
  runtime::Fd wake_;  // eventfd: SetTargets and Stop poke the loop
  std::thread thread_;
  bool started_ = false;
  std::atomic<bool> stop_{false};

  std::mutex pending_mu_;
  std::optional<std::vector<ProbeTarget>> pending_;

  // Engine thread only.
  Scheduler scheduler_;
  Rng rng_;
  TlsSessionCache sessions_;
  std::map<std::string, ProbeTarget> targets_;
  struct Running {
    std::unique_ptr<ProbeConnection> conn;
    uint32_t registered = 0;  // events in the epoll set; 0: not added
  };
  std::unordered_map<uint64_t, Running> running_;

  mutable std::mutex state_mu_;
  std::map<std::string, NodeState> states_;
  EngineCounters counters_;
};

}  // namespace ax::probe
