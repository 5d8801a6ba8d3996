// One thing to probe: a node name, the address to probe it at, its declared
// HealthCheck and the probe token the node expects. Plain data; the caller
// resolves which address to use and reads the token (file or Secret).
#pragma once

#include <string>

#include "ax/ip.h"
#include "ax/model.h"

namespace ax::probe {

struct ProbeTarget {
  std::string node;  // the identity: one probe per node per interval
  IpAddress address;
  HealthCheck check;
  // Sent as the token header (EngineConfig::token_header) when non-empty so
  // a node can allow-list probes. Never logged or put into error text.
  std::string token;
};

// Same node probed the same way (used to notice a changed spec).
bool SameProbe(const ProbeTarget& a, const ProbeTarget& b);

// The port to connect to: check.port, or 80/443 for HTTP/HTTPS when 0
// (TCP has no default: 0 is returned and the probe fails as kConfig).
uint16_t EffectivePort(const HealthCheck& check);

}  // namespace ax::probe
