// LogHealthChange (health_change_log.h).
#include "engine/health_change_log.h"

#include "ax/node_status.h"
#include "ax/runtime/log.h"

namespace ax::probe {

bool LogHealthChange(const ProbeEvent& event) {
  if (!event.transition.changed) return false;
  // Rare (thresholds damp flapping) and what an operator asks first when
  // answers change: which node, which way, and why.
  runtime::Log(runtime::LogLevel::kInfo, "node health changed",
               {{"node", event.node},
                {"from", HealthName(event.transition.from)},
                {"to", HealthName(event.transition.to)},
                {"error", event.result.error}});
  return true;
}

}  // namespace ax::probe
