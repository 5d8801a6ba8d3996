// Helpers for the ax-dns server tests: temp directories removed on scope
// exit, file writes (plain and atomic), polling with a deadline, and small
// valid snapshots built with the core builder.
#pragma once

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <thread>

#include "ax/snapshot_json.h"
#include "temp_dir.h"
#include "test_world.h"
#include "wait_for.h"

namespace ax::dns::testing {

using ax::testing::TempDir;
using ax::testing::WaitFor;
using ax::testing::WriteFile;

// Write to a sibling and rename over: what editors and kubelet do.
inline void WriteFileAtomically(const std::filesystem::path& path,
                                const std::string& text) {
  const std::filesystem::path tmp = path.string() + ".tmp";
  WriteFile(tmp, text);
  std::filesystem::rename(tmp, path);
}

inline std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// A small valid snapshot with `version`; `variant` changes a node address so
// that equal versions can carry different content.
inline Snapshot MakeSnapshot(uint64_t version, int variant = 0) {
  ax::testing::TestWorld w;
  w.AddNode("a", "192.0.2." + std::to_string(1 + variant));
  w.AddNode("b", "192.0.2.100");
  w.AddRegion("r1", {"a", "b"});
  w.AddDomain("www", Strategy::kRegionPriority, 2);
  BuildOptions options;
  options.now_ms = 1'000'000;
  options.version = version;
  return BuildSnapshot(w.world, w.status, nullptr, options);
}

inline std::string MakeSnapshotJson(uint64_t version, int variant = 0) {
  return SerializeSnapshot(MakeSnapshot(version, variant));
}

inline std::filesystem::path QuickstartDir() {
  return std::filesystem::path(AX_SOURCE_DIR) / "examples" / "quickstart";
}

}  // namespace ax::dns::testing
