// ProbeOutcome -> ProbeResult (outcome.h).
#include "engine/outcome.h"

namespace ax::probe {

ProbeResult ToProbeResult(const ProbeOutcome& outcome, int64_t at_ms) {
  ProbeResult result;
  result.ok = outcome.ok();
  if (result.ok) result.latency_ms = outcome.phases.total_ms;
  result.load = outcome.load;
  result.at_ms = at_ms;
  if (!result.ok) {
    result.error = ProbeErrorName(outcome.error);
    if (!outcome.detail.empty()) result.error += ": " + outcome.detail;
  }
  return result;
}

}  // namespace ax::probe
