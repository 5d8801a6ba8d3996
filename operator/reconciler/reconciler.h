// The reconcile loop: one thread that, after a change (debounced, so a burst
// of events makes one pass), a requeue time the plan asked for, a periodic
// resync or a failed pass's backoff, gathers the cached world, plans it and,
// only while this replica leads, applies the plan. Followers keep their
// caches warm and write nothing.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "ax/controller/observed_state.h"
#include "ax/kube/backoff.h"
#include "ax/signals/metric_reader.h"
#include "cluster_cache.h"
#include "member_set.h"
#include "operator_metrics.h"
#include "plan_applier.h"
#include "written_objects.h"

namespace ax::controller {

struct ReconcilerOptions {
  PlanOptions plan;  // namespace, route table, history depth
  std::chrono::milliseconds debounce{100};
  std::chrono::milliseconds resync{30'000};
  // Plans per pass when the route-table write loses a race.
  int attempts = 3;
};

class Reconciler {
 public:
  // `reader` (may be null: no Canary metrics are read) evaluates the plans'
  // canary_queries while this replica leads. `members` (may be null: no
  // member clusters) add their ProbeReports to each pass and are offered
  // the route table after it.
  Reconciler(ClusterCache& cache, PlanApplier& applier,
             OperatorMetrics& metrics, ReconcilerOptions options,
             signals::MetricReader* reader = nullptr,
             MemberSet* members = nullptr);
  ~Reconciler();  // Stop()
  Reconciler(const Reconciler&) = delete;
  Reconciler& operator=(const Reconciler&) = delete;

  void Start();
  void Stop();

  // Something watched changed (any thread): plan soon.
  void MarkDirty();
  // From the leader elector (any thread). Gaining: plan at once. Losing:
  // writes stop before the next call (MayWrite).
  void SetLeader(bool leader);
  bool MayWrite() const { return leader_.load(std::memory_order_acquire); }

 private:
  using Clock = std::chrono::steady_clock;

  void Run();
  // One pass; when to plan again by time alone (unset: on change only).
  std::optional<Clock::duration> Pass();
  void Account(const Plan& plan, const ObservedState& observed,
               const ApplyResult& applied);
  void LogInvalid(const Plan& plan);

  ClusterCache& cache_;
  PlanApplier& applier_;
  OperatorMetrics& metrics_;
  signals::MetricReader* const reader_;
  MemberSet* const members_;
  const ReconcilerOptions options_;
  const Clock::time_point started_at_ = Clock::now();
  std::atomic<bool> leader_{false};

  std::mutex mu_;
  std::condition_variable wake_;
  bool dirty_ = true;
  bool stopping_ = false;
  std::thread thread_;

  // The reconcile thread's own state.
  WrittenObjects written_;
  kube::Backoff backoff_;
  std::set<std::string> invalid_logged_;  // "Kind/name" last logged
};

}  // namespace ax::controller
