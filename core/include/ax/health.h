// Per-node, per-vantage health state machine: turns one vantage's stream of raw
// probe results into an anti-flap verdict (fail 3 / rise 5, plus flap damping
// that holds a node Down once it keeps flapping), a smoothed latency and the
// latest self-reported load. Pure: time arrives in ProbeResult::at_ms.
// Combining several vantages' verdicts lives in quorum.h, probing at the edges.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>

#include "ax/model.h"
#include "ax/node_status.h"

namespace ax {

// One raw probe outcome as a prober saw it.
struct ProbeResult {
  bool ok = false;
  std::optional<double> latency_ms;  // round trip; only used when ok
  std::optional<NodeLoad> load;      // parsed from the health endpoint body
  std::optional<double> error_rate;  // the same body's errorRate, 0..1
  int64_t at_ms = 0;                 // when the probe completed
  std::string error;                 // why it failed; empty when ok
};

struct HealthPolicy {
  static constexpr size_t kMinLatencyWindow = 5;
  static constexpr size_t kMaxLatencyWindow = 10;

  uint32_t failure_threshold = 3;  // consecutive failures to go Up -> Down
  uint32_t success_threshold = 5;  // consecutive successes to go Down -> Up
  size_t latency_window = 8;       // samples kept; clamped to [5, 10]
  // 0 (or anything outside (0, 1)): plain mean over the window. In (0, 1): the
  // newest sample weighs 1, the k-th older one latency_decay^k.
  double latency_decay = 0;
  FlapDamping damping;

  static HealthPolicy FromHealthCheck(const HealthCheck& check);
  size_t EffectiveLatencyWindow() const;
};

struct Transition {
  Health from = Health::kUnknown;
  Health to = Health::kUnknown;
  bool changed = false;
};

// A value type: one per (node, vantage). Starts Unknown; see Observe for rules.
class HealthTracker {
 public:
  // Feeds one result. Results not newer than the last one observed are ignored
  // (reports arrive out of order and may be replayed) and return changed=false.
  Transition Observe(const ProbeResult& result, const HealthPolicy& policy);

  Health state() const { return state_; }
  // Smoothed over the last successful probes; absent until one carried latency.
  std::optional<double> latency_ms() const { return latency_ms_; }
  const std::optional<NodeLoad>& load() const { return load_; }
  // The latest error rate a result carried (kept while later ones carry none).
  std::optional<double> error_rate() const { return error_rate_; }
  // When state() last changed, including the first verdict out of Unknown.
  int64_t changed_at_ms() const { return changed_at_ms_; }
  // Up <-> Down changes (the flap count); the first verdict is not a flap.
  uint32_t transitions() const { return transitions_; }
  uint32_t consecutive_successes() const { return ok_streak_; }
  uint32_t consecutive_failures() const { return fail_streak_; }
  // Flap damping (RFC 2439 §4.2 figures): every Up -> Down adds kFlapPenalty;
  // at kSuppressLimit the node is held Down until the decayed penalty falls
  // below kReuseLimit. Both as of the latest observed result.
  static constexpr double kFlapPenalty = 1000;
  static constexpr double kSuppressLimit = 2000;
  static constexpr double kReuseLimit = 750;
  bool suppressed() const { return suppressed_; }
  double flap_penalty() const { return penalty_; }
  // The error of the latest result if it failed, for status conditions.
  const std::string& last_error() const { return last_error_; }

  NodeStatus ToStatus() const;

 private:
  Health NextState(const HealthPolicy& policy) const;
  void AddLatencySample(double sample, const HealthPolicy& policy);
  void DecayPenalty(int64_t elapsed_ms, const FlapDamping& damping);
  void AddFlapPenalty(const FlapDamping& damping);

  Health state_ = Health::kUnknown;    // verdict_, or Down while suppressed
  Health verdict_ = Health::kUnknown;  // the thresholds' alone
  std::optional<int64_t> last_at_ms_;
  int64_t changed_at_ms_ = 0;
  uint32_t ok_streak_ = 0;
  uint32_t fail_streak_ = 0;
  uint32_t transitions_ = 0;
  double penalty_ = 0;  // as of last_at_ms_
  bool suppressed_ = false;
  std::deque<double> latency_samples_;  // oldest first
  std::optional<double> latency_ms_;
  std::optional<NodeLoad> load_;
  std::optional<double> error_rate_;
  std::string last_error_;
};

}  // namespace ax
