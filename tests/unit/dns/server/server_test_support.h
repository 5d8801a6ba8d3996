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
#include "test_world.h"

namespace ax::dns::testing {

class TempDir {
 public:
  TempDir() {
    std::string tmpl =
        (std::filesystem::temp_directory_path() / "ax-server-XXXXXX").string();
    path_ = ::mkdtemp(tmpl.data());
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const {
    return path_ / name;
  }

 private:
  std::filesystem::path path_;
};

inline void WriteFile(const std::filesystem::path& path,
                      const std::string& text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

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

// Polls `done` every 10 ms until it holds or `timeout` passes.
inline bool WaitFor(
    const std::function<bool()>& done,
    std::chrono::milliseconds timeout = std::chrono::milliseconds(5000)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return done();
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
