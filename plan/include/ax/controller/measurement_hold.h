// Measurement hysteresis for the published snapshot: probes move every
// node's latency and self-reported load a little on every report, and the
// snapshot carries both (and the scores built from them), so without this
// each heartbeat would publish a new version and the kept rollback versions
// would span a minute. A material change publishes at once: a move beyond the
// tolerance, or load crossing the knee. Pure; the status planners keep their
// own tolerance.
#pragma once

#include "ax/model.h"
#include "ax/node_status.h"
#include "ax/quorum.h"
#include "ax/snapshot.h"

namespace ax::controller {

// Whether `now` moved from `before` by no more than `tolerance` of the larger
// value, or no more than `floor`: noise, what was published or written stands.
// The holds below, the Node status writes and standalone's re-plan on a
// reported error rate all judge a measurement's move by it.
bool WithinTolerance(double now, double before, double tolerance, double floor);

// Moves of a reported error rate under 0.05 points are noise.
inline constexpr double kErrorRateFloor = 0.0005;

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

// `status` with each node's load replaced by one that gives the utilisation
// `previous` carries for it (its declared capacities in `world`), unless the
// new utilisation moved by more than `tolerance` of the larger value and by
// more than 5 points, or crossed the load knee (score.h) either way. Nodes
// new to the snapshot, without load or capacity, take the new value.
StatusMap HoldLoads(StatusMap status, const World& world,
                    const Snapshot* previous, double tolerance);

}  // namespace ax::controller
