// The snapshot as a document: deterministic compact JSON, its content hash, a
// strict parser and the snapshot invariants. The data plane parses untrusted
// bytes here on every reload, so nothing in this header throws or asserts on
// document content. Building a Snapshot from the declared world lives in
// build_snapshot.h, not here.
#pragma once

#include <optional>
#include <string>
#include <string_view>
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

// Compact JSON; equal snapshots give identical bytes. Doubles are rounded to a
// fixed precision per field first, so parse -> serialise reproduces the bytes
// exactly. The "contentHash" written is always ComputeContentHash(snapshot):
// `content_hash` is not read, so a document can never disagree with its own
// hash.
std::string SerializeSnapshot(const Snapshot& snapshot);

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
ParseSnapshotResult ParseSnapshot(std::string_view json);

// The invariants that hold for every published snapshot, independent of JSON:
// indices in range, unique names, scores in (0, 1], one route per region plus
// one, and so on. The builder runs this before publishing; ParseSnapshot runs
// it on every load.
std::vector<SnapshotError> ValidateSnapshot(const Snapshot& snapshot);

}  // namespace ax
