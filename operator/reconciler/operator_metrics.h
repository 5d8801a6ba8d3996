// ax-operator's Prometheus metrics, exactly the runbook's table ("Metrics the
// operator exports (issue 6)"): a Collectable over state the reconcile loop,
// the leader elector and the informers update. Leader-only series vanish on a
// follower; counters start at 0 for every label value listed.
#pragma once

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "ax/controller/plan.h"

namespace ax::controller {

// ax_operator_reconcile_errors_total{stage}.
enum class ReconcileStage { kGather, kValidate, kPlan, kPublish, kStatus };
const char* ReconcileStageName(ReconcileStage stage);

inline constexpr std::array<double, 12> kReconcileDurationBounds = {
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30};

class OperatorMetrics : public prometheus::Collectable {
 public:
  // resource (domains, ...) -> watches re-established, read at scrape time.
  using WatchRestarts = std::function<std::map<std::string, uint64_t>()>;

  OperatorMetrics(std::string pod, WatchRestarts watch_restarts);

  void SetLeader(bool leader);
  void ObserveReconcile(double seconds);
  // Statuses the last pass planned but left to the next one (it gave way).
  void ObserveStatusBacklog(size_t statuses);
  void CountError(ReconcileStage stage);
  // What the pass applied: the snapshot in force, nodes by health, regions,
  // vantages; `published_now` when this pass wrote a new version.
  void ObservePlan(const PlanSummary& summary, bool published_now,
                   double now_seconds);
  // Every Canary gets a series from when it is seen; rolled back ones count.
  void ObserveCanaries(const std::vector<std::string>& names);
  void CountRollback(const std::string& canary);

  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  const std::string pod_;
  const WatchRestarts watch_restarts_;

  mutable std::mutex mu_;
  bool leader_ = false;
  std::array<uint64_t, kReconcileDurationBounds.size() + 1> buckets_{};
  uint64_t reconciles_ = 0;
  double reconcile_seconds_ = 0;
  size_t status_backlog_ = 0;
  std::array<uint64_t, 5> errors_{};
  std::optional<PlanSummary> summary_;  // the last pass's, while leading
  double published_at_s_ = 0;
  std::map<std::string, uint64_t> rollbacks_;
};

}  // namespace ax::controller
