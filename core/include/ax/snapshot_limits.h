// The sizes a snapshot may have. Every ax-dns replica parses and allocates for
// whatever one publish holds, so these bounds are enforced where a snapshot is
// read (ParseSnapshot: the document's bytes, nesting and JSON values, before
// anything is built) and where one is made or loaded (ValidateSnapshot: the
// counts), each refusal naming the limit. docs/security.md lists them; the
// numbers live only here.
#pragma once

#include <cstddef>
#include <vector>

#include "ax/snapshot.h"
#include "ax/snapshot_validate.h"

namespace ax {

// The document as text (after gzip, when it came gzipped).
inline constexpr size_t kSnapshotMaxDocumentBytes = size_t{16} << 20;
// Arrays and objects inside each other; the format itself nests 5 deep.
inline constexpr size_t kSnapshotMaxDepth = 32;
// Every value of the document (objects, arrays, strings, numbers, ...): bounds
// what the parser builds before the counts can be read.
inline constexpr size_t kSnapshotMaxJsonValues = size_t{2} << 20;

inline constexpr size_t kSnapshotMaxNodes = 10'000;
inline constexpr size_t kSnapshotMaxRegions = 4'096;
inline constexpr size_t kSnapshotMaxDomains = 10'000;
inline constexpr size_t kSnapshotMaxRoutes = 262'144;
inline constexpr size_t kSnapshotMaxCanaries = 10'000;
inline constexpr size_t kSnapshotMaxVantageGroups = 4'096;
inline constexpr size_t kSnapshotMaxIspSets = 4'096;
// Corrections per prefix: measured suggestions come one per client prefix.
inline constexpr size_t kSnapshotMaxGeoOverrides = 65'536;
// domains x (regions + 1 + nodes): the route index of each domain and the
// answer counters each ax-dns worker keeps per snapshot (8 bytes a cell).
inline constexpr size_t kSnapshotMaxDomainCells = size_t{1} << 20;

struct SnapshotCounts {
  size_t nodes = 0;
  size_t regions = 0;
  size_t domains = 0;
  size_t routes = 0;
  size_t canaries = 0;
  size_t vantage_groups = 0;
  size_t isp_sets = 0;
  size_t geo_overrides = 0;
};

SnapshotCounts CountsOf(const Snapshot& snapshot);

// One error per count over its limit, at the list's path ("nodes"), or at the
// document ("") for the product of domains and regions + nodes.
std::vector<SnapshotError> CheckSnapshotCounts(const SnapshotCounts& counts);

}  // namespace ax
