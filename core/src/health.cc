// The per-vantage health state machine (health.h) and the Health enum's names.
// Pure: no clocks; every timestamp comes from the ProbeResult being observed.
#include "ax/health.h"

#include <algorithm>
#include <cmath>

#include "ax/enum_names.h"

namespace ax {

namespace {
constexpr NameTable<Health, 3> kHealthNames{{
    {Health::kUnknown, "Unknown"},
    {Health::kUp, "Up"},
    {Health::kDown, "Down"},
}};
}  // namespace

const char* HealthName(Health h) { return NameOf(kHealthNames, h); }
std::optional<Health> ParseHealth(std::string_view name) {
  return ValueOf(kHealthNames, name);
}

HealthPolicy HealthPolicy::FromHealthCheck(const HealthCheck& check) {
  HealthPolicy policy;
  policy.failure_threshold = check.failure_threshold;
  policy.success_threshold = check.success_threshold;
  policy.damping = check.flap_damping;
  return policy;
}

size_t HealthPolicy::EffectiveLatencyWindow() const {
  return std::clamp(latency_window, kMinLatencyWindow, kMaxLatencyWindow);
}

Transition HealthTracker::Observe(const ProbeResult& result,
                                  const HealthPolicy& policy) {
  const Health from = state_;
  // Equal timestamps are ignored too, so replaying a report is a no-op.
  if (last_at_ms_ && result.at_ms <= *last_at_ms_) return {from, from, false};
  if (last_at_ms_) DecayPenalty(result.at_ms - *last_at_ms_, policy.damping);
  last_at_ms_ = result.at_ms;

  if (result.load) load_ = result.load;
  if (result.error_rate) error_rate_ = result.error_rate;
  if (result.ok) {
    ++ok_streak_;
    fail_streak_ = 0;
    last_error_.clear();
    if (result.latency_ms) AddLatencySample(*result.latency_ms, policy);
  } else {
    ++fail_streak_;
    ok_streak_ = 0;
    last_error_ = result.error;
  }

  // The thresholds' verdict keeps running under a hold, and its flaps keep
  // adding penalty, as withdrawals of a suppressed route do (RFC 2439 §4.4):
  // a node that is still flapping stays held.
  const Health verdict = NextState(policy);
  if (verdict_ == Health::kUp && verdict == Health::kDown) {
    AddFlapPenalty(policy.damping);
  }
  verdict_ = verdict;

  const Health to = suppressed_ ? Health::kDown : verdict;
  if (to != from) {
    state_ = to;
    changed_at_ms_ = result.at_ms;
    if (from != Health::kUnknown) ++transitions_;
  }
  return {from, to, to != from};
}

Health HealthTracker::NextState(const HealthPolicy& policy) const {
  // A threshold of 0 would mean "change without evidence"; treat it as 1.
  const uint32_t fall = std::max<uint32_t>(1, policy.failure_threshold);
  const uint32_t rise = std::max<uint32_t>(1, policy.success_threshold);
  switch (verdict_) {
    case Health::kUnknown:
      // The first result decides. Waiting for `rise` successes would keep every
      // node Unknown for ~25 s after each operator restart or new Node, and
      // waiting for `fall` failures would keep sending clients to a dead node.
      // Anti-flap only matters once there is a verdict to flap away from.
      return ok_streak_ > 0 ? Health::kUp : Health::kDown;
    case Health::kUp:
      return fail_streak_ >= fall ? Health::kDown : Health::kUp;
    case Health::kDown:
      return ok_streak_ >= rise ? Health::kUp : Health::kDown;
  }
  return verdict_;
}

void HealthTracker::DecayPenalty(int64_t elapsed_ms,
                                 const FlapDamping& damping) {
  if (!damping.enabled || damping.half_life_ms == 0) {
    penalty_ = 0;
    suppressed_ = false;
    return;
  }
  // RFC 2439 §4.2: exponential decay, halving every half-life.
  penalty_ *= std::exp2(-static_cast<double>(elapsed_ms) /
                        static_cast<double>(damping.half_life_ms));
  if (suppressed_ && penalty_ < kReuseLimit) suppressed_ = false;
}

void HealthTracker::AddFlapPenalty(const FlapDamping& damping) {
  if (!damping.enabled || damping.half_life_ms == 0) return;
  // The ceiling bounds how long the node can stay held: from it, the penalty
  // decays to the reuse limit in exactly max_suppress (RFC 2439 §4.2).
  const double ceiling =
      kReuseLimit * std::exp2(static_cast<double>(damping.max_suppress_ms) /
                              static_cast<double>(damping.half_life_ms));
  penalty_ = std::min(ceiling, penalty_ + kFlapPenalty);
  if (penalty_ >= kSuppressLimit) suppressed_ = true;
}

void HealthTracker::AddLatencySample(double sample,
                                     const HealthPolicy& policy) {
  // One NaN or negative sample would poison the average for a whole window.
  if (!std::isfinite(sample) || sample < 0) return;
  latency_samples_.push_back(sample);
  while (latency_samples_.size() > policy.EffectiveLatencyWindow()) {
    latency_samples_.pop_front();
  }

  const double decay = policy.latency_decay;
  const bool decayed = decay > 0 && decay < 1;
  double weight = 1;
  double weighted_sum = 0;
  double weight_sum = 0;
  for (auto it = latency_samples_.rbegin(); it != latency_samples_.rend();
       ++it) {
    weighted_sum += weight * *it;
    weight_sum += weight;
    if (decayed) weight *= decay;
  }
  latency_ms_ = weighted_sum / weight_sum;
}

NodeStatus HealthTracker::ToStatus() const {
  return NodeStatus{state_, latency_ms_, load_, changed_at_ms_, error_rate_};
}

}  // namespace ax
