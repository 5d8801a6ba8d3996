// --served-from: what the ax-dns beside this sidecar serves, read from its
// read-only API (GET /v1/snapshot) for the report's spec.served, so readers
// of the reports (axctl status) see each replica's version and age. Reading
// and parsing only; the report loop decides when.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "ax/probe_report.h"

namespace ax::probe {

// The /v1/snapshot body's version, contentHash and loadedAt; nullopt when it
// is not such a document (503 before a snapshot is served has none).
std::optional<ServedSnapshot> ParseServedSnapshot(std::string_view body);

class ServedSnapshotReader {
 public:
  // `address` HOST:PORT of ax-dns's --api-listen; "" reads nothing.
  explicit ServedSnapshotReader(std::string address);

  // One GET (short timeouts: the sidecar's loopback neighbour). A failure is
  // logged when it starts and when it ends, not at every report.
  std::optional<ServedSnapshot> Read();

 private:
  const std::string address_;
  bool failing_ = false;
};

}  // namespace ax::probe
