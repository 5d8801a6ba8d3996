// The one log line of a verdict change, shared by every embedder of the
// engine (ax-probe and standalone ax-dns), so operators grep one message.
// Deciding what a change means (write a report, plan again) is the caller's.
#pragma once

#include "engine/engine.h"

namespace ax::probe {

// Logs "node health changed" (node, from, to, the probe's error) when the
// event changed the node's verdict; returns whether it did.
bool LogHealthChange(const ProbeEvent& event);

}  // namespace ax::probe
