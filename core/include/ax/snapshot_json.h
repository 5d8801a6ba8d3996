// The snapshot as a document: deterministic compact JSON, its content hash and
// a strict parser. The data plane parses untrusted bytes here on every reload,
// so nothing in this header throws or asserts on document content. The
// invariants (and SnapshotError) live in snapshot_validate.h, building a
// Snapshot from the declared world in build_snapshot.h.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ax/snapshot.h"
#include "ax/snapshot_validate.h"

namespace ax {

// Compact JSON; equal snapshots give identical bytes. Doubles are rounded to a
// fixed precision per field first, so parse -> serialise reproduces the bytes
// exactly. The "contentHash" written is always ComputeContentHash(snapshot):
// `content_hash` is not read, so a document can never disagree with its own
// hash.
std::string SerializeSnapshot(const Snapshot& snapshot);

// Rounds every double in place to the precision it is serialised with, so that
// a snapshot the builder hands over directly (standalone) is equal to what a
// reader parses back from the document (ConfigMap): the same answers either
// way.
void QuantiseSnapshot(Snapshot& snapshot);

// "fnv1a64:<16 hex digits>" over the canonical serialisation of everything
// except version, generatedAtMs and contentHash: equal content, equal hash,
// across versions.
std::string ComputeContentHash(const Snapshot& snapshot);

struct ParseSnapshotResult {
  std::optional<Snapshot> snapshot;  // set only when `errors` is empty
  std::vector<SnapshotError>
      errors;  // capped; the first ones are the most telling
};

// Strict: any malformed JSON, unknown or missing key, wrong type, unknown enum
// name, invalid address, broken invariant (ValidateSnapshot) or hash mismatch
// is an error. Never throws.
ParseSnapshotResult ParseSnapshot(std::string_view document);

}  // namespace ax
