// The snapshot invariants, independent of JSON, and SnapshotError, the one
// error type every snapshot check reports. The builder runs ValidateSnapshot
// before publishing and ParseSnapshot (snapshot_json.h) on every load, so
// nothing here throws or asserts on snapshot content; serialisation does not
// belong here.
#pragma once

#include <string>
#include <vector>

#include "ax/snapshot.h"

namespace ax {

// One problem in a snapshot, located by its JSON path
// ("routes[12].candidates[3][0]"; empty for the document as a whole).
struct SnapshotError {
  std::string path;
  std::string message;
  std::string ToString() const;
};

// The invariants that hold for every published snapshot, independent of JSON:
// indices in range, unique names, scores in (0, 1], one route per region plus
// one, and so on. The builder runs this before publishing; ParseSnapshot runs
// it on every load.
std::vector<SnapshotError> ValidateSnapshot(const Snapshot& snapshot);

}  // namespace ax
