// Leader election over a coordination.k8s.io/v1 Lease, as client-go's
// leaderelection: candidates try every retryPeriod (with jitter) until the
// lease is free or expired; the leader renews every retryPeriod and stops
// leading the moment a renewal misses renewDeadline (each call's timeout is
// what is left of it) or someone else holds the lease; on Stop() it releases
// the lease. A leader that lost the lease becomes a candidate again; a
// program that cannot stop its leader work cleanly should exit in
// on_stopped_leading, as client-go users do. Decisions are lease_decision.h's
// pure functions; this file does the reads, writes, waits and callbacks, on
// its own thread.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "ax/kube/backoff.h"
#include "ax/kube/cancel.h"
#include "ax/kube/client.h"
#include "ax/kube/lease_decision.h"

namespace ax::kube {

struct LeaderElectionConfig {
  Resource lease;        // Leases().In(ns).Named(name)
  std::string identity;  // unique per replica (pod name plus a random part)
  ElectionTiming timing;
  // Step down by writing an empty holder on Stop(), so a successor need not
  // wait for the lease to expire. Off, Stop() just stops renewing.
  bool release_on_stop = true;
  // metadata.ownerReferences (owner_references.h) of the Lease, so that it
  // goes with its owner: written when it is created, and added by the next
  // acquire or renewal to a lease that lacks one (an older version's).
  nlohmann::json owner_references = nlohmann::json::array();
  // On the elector's thread; they must return promptly (start or stop the
  // leader's work elsewhere). on_stopped_leading follows every
  // on_started_leading, also at Stop().
  std::function<void()> on_started_leading;
  std::function<void()> on_stopped_leading;
  std::function<void(const Error&)> on_error;  // failed reads/writes, for logs
  Random random;                               // null: OsSeededRandom()
};

class LeaderElector {
 public:
  // Fails on bad timing (ValidateTiming), an empty identity or lease name.
  static Result<std::unique_ptr<LeaderElector>> Create(
      Client& client, LeaderElectionConfig config);
  ~LeaderElector();  // Stop()
  LeaderElector(const LeaderElector&) = delete;
  LeaderElector& operator=(const LeaderElector&) = delete;

  // Starts the election thread. Once: a stopped elector stays stopped.
  void Start();
  // Cancels waits and requests, releases the lease if leading (and asked
  // to), calls on_stopped_leading, joins.
  void Stop();

  bool IsLeader() const { return leading_.load(std::memory_order_acquire); }

 private:
  LeaderElector(Client& client, LeaderElectionConfig config);

  void Run();
  // One read and, if the decision says so, one write, all before
  // `deadline`. true when we hold the lease afterwards.
  bool TryAcquireOrRenew(SteadyTime deadline);
  void Release();
  void SetLeading(bool leading);
  void Report(const Error& error);

  Client& client_;
  const LeaderElectionConfig config_;
  const Random random_;
  CancelToken cancel_;
  std::thread thread_;
  std::atomic<bool> leading_{false};

  // The elector thread's own state.
  ElectorMemory memory_;
  nlohmann::json lease_object_;  // as last read or written (for updates)
};

}  // namespace ax::kube
