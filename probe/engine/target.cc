// ProbeTarget helpers (target.h).
#include "engine/target.h"

namespace ax::probe {

bool SameProbe(const ProbeTarget& a, const ProbeTarget& b) {
  const HealthCheck& x = a.check;
  const HealthCheck& y = b.check;
  return a.node == b.node && a.address == b.address && a.token == b.token &&
         x.protocol == y.protocol && x.port == y.port && x.path == y.path &&
         x.host == y.host && x.expect_status == y.expect_status &&
         x.body_match == y.body_match && x.timeout_ms == y.timeout_ms &&
         x.interval_ms == y.interval_ms &&
         x.failure_threshold == y.failure_threshold &&
         x.success_threshold == y.success_threshold;
}

uint16_t EffectivePort(const HealthCheck& check) {
  if (check.port != 0) return check.port;
  switch (check.protocol) {
    case ProbeProtocol::kHttp:
      return 80;
    case ProbeProtocol::kHttps:
      return 443;
    case ProbeProtocol::kTcp:
      return 0;
  }
  return 0;
}

}  // namespace ax::probe
