// IndexSnapshot: the derived, unserialised fields of a snapshot.
#include "ax/hash.h"
#include "ax/snapshot.h"

namespace ax {

void IndexSnapshot(Snapshot& snapshot) {
  for (SnapshotNode& node : snapshot.nodes) node.name_hash = Fnv1a64(node.name);
  for (SnapshotCanary& canary : snapshot.canaries)
    canary.name_hash = Fnv1a64(canary.name);
}

}  // namespace ax
