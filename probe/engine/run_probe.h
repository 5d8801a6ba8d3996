// One probe, run to completion on the calling thread: the same
// ProbeConnection the engine uses, driven by a private epoll set with the
// check's timeout as the deadline. For tests, one-shot CLI checks and
// debugging a node; the engine multiplexes many probes instead (engine.h).
#pragma once

#include "engine/outcome.h"
#include "engine/probe_connection.h"
#include "engine/target.h"

namespace ax::probe {

// Blocks for at most target.check.timeout_ms (plus scheduling noise).
ProbeOutcome RunProbe(const ProbeTarget& target,
                      const ConnectionOptions& options);

}  // namespace ax::probe
