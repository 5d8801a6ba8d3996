// Latency hysteresis for the published snapshot: probes move every node's
// latency a little on every report, and the snapshot carries it (and the
// scores built from it), so without this each heartbeat would publish a new
// version. Pure; the status planners keep their own tolerance.
#pragma once

#include "ax/node_status.h"
#include "ax/quorum.h"
#include "ax/snapshot.h"

namespace ax::controller {

// `status` with each node's latency replaced by the one `previous` (the
// snapshot in force) carries for it, unless the new measurement moved by more
// than `tolerance` of the larger value and by more than 1 ms. Nodes new to the
// snapshot, or not measured in it, take the new value.
StatusMap HoldLatencies(StatusMap status, const Snapshot* previous,
                        double tolerance);

// The same for each vantage group's latencies, against what `previous`
// carries for that group.
GroupQuorums HoldGroupLatencies(GroupQuorums groups, const Snapshot* previous,
                                double tolerance);

}  // namespace ax::controller
