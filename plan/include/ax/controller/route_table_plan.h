// Plan step 4: which route table ax-dns serves after this plan. Reads the
// current ConfigMap (previous snapshot, for hysteresis, failover windows and
// the version), then publishes a newly built snapshot only when its content
// hash changed, it validates and it fits; or honours a rollback annotation.
// Building the snapshot is the core's; encoding is route_table_configmap.h's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "ax/controller/observed_state.h"
#include "ax/route_table_configmap.h"
#include "ax/snapshot.h"

namespace ax::controller {

// On the route-table ConfigMap: serve the kept version N (re-stamped with a new
// version, as ax-dns only loads versions above what it has seen) and hold it
// until the annotation is removed.
inline constexpr char kRollbackAnnotation[] = "gslb.ax.io/rollback-to";

struct PreviousRouteTable {
  const nlohmann::json* config_map = nullptr;  // null before the first publish
  std::optional<Snapshot> snapshot;      // unset when absent or unreadable
  std::optional<RouteTableError> error;  // why it is unreadable
  // The next version must exceed this: the current table's and every kept
  // version's.
  uint64_t highest_version = 0;
  std::optional<std::string> rollback_to;  // the annotation, when set
  // Of the readable current table.
  size_t document_bytes = 0;
  size_t payload_bytes = 0;
  bool gzipped = false;
};

PreviousRouteTable ReadPreviousRouteTable(const ObservedState& observed);

enum class PublishOutcome {
  kPublished,   // a new version goes out
  kUnchanged,   // same content hash as the table in force: nothing to write
  kRejected,    // the new snapshot is invalid or too large: the old one stays
  kRolledBack,  // the rollback annotation's version is (now) in force
  kHeld,        // the rollback annotation cannot be honoured: nothing changes
};
const char* PublishOutcomeName(PublishOutcome outcome);

struct RouteTableDecision {
  PublishOutcome outcome = PublishOutcome::kUnchanged;
  // For the Event and the Domains' Published condition: SnapshotPublished,
  // SnapshotUnchanged, SnapshotInvalid, SnapshotTooLarge, SnapshotBuildFailed,
  // RolledBack, RollbackFailed.
  std::string reason;
  std::string message;  // the same for the same situation (conditions)
  std::string detail;   // figures that may vary (sizes), for the Event only
  // The ConfigMap to write: without metadata.resourceVersion it is created,
  // with one it replaces the current (a conflict means another writer won:
  // plan again).
  std::optional<nlohmann::json> config_map;
  std::vector<nlohmann::json> history_creates;
  std::vector<std::string> history_deletes;
  // The snapshot ax-dns serves after this plan (null: none yet). Points into
  // the built snapshot, the PreviousRouteTable or `rolled_back`.
  const Snapshot* in_force = nullptr;
  // The re-stamped kept version; on the heap so in_force survives moves.
  std::shared_ptr<Snapshot> rolled_back;
  // Of the snapshot in force when this plan wrote it, else of the new one
  // that was refused; 0 when unknown.
  size_t snapshot_bytes = 0;  // the document
  size_t payload_bytes = 0;   // what the ConfigMap stores (text or gzip)
  bool gzipped = false;
};

// `built` is the snapshot built in this plan (null when building failed, with
// `build_error` saying why). Keep `previous` and `built` alive as long as the
// decision: in_force may point into them.
RouteTableDecision DecideRouteTable(const Snapshot* built,
                                    const std::string& build_error,
                                    const PreviousRouteTable& previous,
                                    const ObservedState& observed);

}  // namespace ax::controller
