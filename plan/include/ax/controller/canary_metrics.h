// The Canary analysis' signals beside the probes, pure: which PromQL is
// evaluated for which node (the canary node at its lowest over the
// breach window, each baseline node at its highest: a breach is one that
// lasted throughout), what the readings say about each spec.analysis.metrics
// entry, and what the nodes' self-reported error rates say about
// spec.analysis.errorRate. Asking Prometheus is signals/ (metric_reader.h),
// in ax-operator and standalone ax-dns; the state machine that acts on the
// verdicts is canary_progress.h.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ax/model.h"
#include "ax/quorum.h"

namespace ax::controller {

// One reading of one metric for one node.
struct MetricReading {
  std::optional<double> value;  // absent: no data, or `error`
  int64_t at_ms = 0;            // when it was read
  std::string error;            // why there is no value, when known
};
// Metric name -> node -> its latest reading, for one Canary.
using MetricReadings =
    std::map<std::string, std::map<std::string, MetricReading>>;
// Canary name -> its readings (ObservedState::canary_readings).
using CanaryReadings = std::map<std::string, MetricReadings>;

// A query the operator should keep evaluating, every `interval_ms`.
struct CanaryQuery {
  std::string canary;
  std::string metric;
  std::string node;
  std::string prometheus;  // base URL
  std::string promql;
  int64_t interval_ms = 0;
  bool operator==(const CanaryQuery&) const = default;
};

// The Domain's other nodes in the Canary's regions (every region when it
// names none) that are Active at `now_ms`, by name.
std::vector<std::string> BaselineNodes(const Canary& canary, const World& world,
                                       int64_t now_ms);

// `metric.query` for `node`, wrapped for the breach window: the lowest value
// over `for` for the canary node, the highest for a baseline node
// (min_over_time / max_over_time of a subquery), as is without a window.
std::string NodeQuery(const CanaryMetric& metric, const std::string& node,
                      bool canary);

// Every query of the Canary's metrics: its node's, then each baseline node's.
std::vector<CanaryQuery> QueriesFor(const Canary& canary,
                                    const std::vector<std::string>& baseline);

// What one metric's readings say.
struct MetricVerdict {
  std::string name;
  std::string subject;             // "metric http-5xx of Node gz-02"
  std::optional<double> canary;    // the canary node's value
  std::optional<double> baseline;  // the mean over baseline nodes with one
  int64_t read_at_ms = 0;          // the oldest reading used; 0: none
  std::string breach;              // why it fails the rollout, or ""
  std::string missing;  // why it cannot judge yet (no reading, no data), or ""
};

// A value or limit as Canary messages quote it ("%g": 0.005, 250, 1e-05).
std::string QuotedNumber(double v);

// Judges each metric of `canary` by `readings` (null: none yet).
std::vector<MetricVerdict> JudgeMetrics(
    const Canary& canary, const std::vector<std::string>& baseline,
    const MetricReadings* readings);

// Judges spec.analysis.errorRate by the error rates the nodes report in their
// health bodies, as the quorum has them (the freshest counted vantage's, read
// when it observed them); nullopt when the Canary sets no errorRate.
std::optional<MetricVerdict> JudgeErrorRate(
    const Canary& canary, const std::vector<std::string>& baseline,
    const QuorumResult& quorum);

}  // namespace ax::controller
