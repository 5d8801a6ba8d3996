// ProbeOutcome -> ProbeResult (outcome.h).
#include "engine/outcome.h"

namespace ax::probe {

std::vector<PhaseDuration> PhaseDurations(const Phases& phases) {
  std::vector<PhaseDuration> out;
  double previous = 0;
  auto add = [&](const char* name, const std::optional<double>& at) {
    if (!at) return;
    out.push_back({name, *at - previous});
    previous = *at;
  };
  add("connect", phases.connect_ms);
  add("tls", phases.tls_ms);
  add("first_byte", phases.first_byte_ms);
  if (phases.first_byte_ms) add("transfer", phases.total_ms);
  if (phases.total_ms) out.push_back({"total", *phases.total_ms});
  return out;
}

ProbeResult ToProbeResult(const ProbeOutcome& outcome, int64_t at_ms) {
  ProbeResult result;
  result.ok = outcome.ok();
  if (result.ok) result.latency_ms = outcome.phases.total_ms;
  result.load = outcome.self.load;
  result.error_rate = outcome.self.error_rate;
  result.at_ms = at_ms;
  if (!result.ok) {
    result.error = ProbeErrorName(outcome.error);
    if (!outcome.detail.empty()) result.error += ": " + outcome.detail;
  }
  return result;
}

}  // namespace ax::probe
