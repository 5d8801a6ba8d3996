// `--snapshot PATH`: loads a snapshot document into the store and reloads it
// when it changes. PATH is a file (text, or gzip when it ends in .gz) or a
// mounted route-table ConfigMap volume, whose snapshot.json or
// snapshot.json.gz (route_table_configmap.h) is read, whichever the operator
// wrote. A ConfigMap volume's atomic `..data` symlink swap is followed (the
// directory is watched and the path re-resolved on every read). Unchanged
// bytes are not reloaded; a stat check on every tick catches symlink targets
// outside the watched directory.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "ax/runtime/dir_watcher.h"
#include "server/snapshot_store.h"

namespace ax::dns {

struct FileSourceOptions {
  std::chrono::milliseconds debounce{200};
  std::chrono::milliseconds tick{5000};
};

class FileSource {
 public:
  FileSource(std::filesystem::path path, SnapshotStore* store,
             FileSourceOptions options = {});

  // Loads the file once now, then watches it. Returns false (with `error`)
  // when the first load failed; the watcher runs regardless, so the file may
  // appear or be fixed later.
  bool Start(std::string* error);
  void Stop();

  // The watcher's completed checks (changes and ticks) since Start: a caller
  // can wait for the next one to see what a check did not do.
  uint64_t Checks() const { return checks_.load(std::memory_order_acquire); }

 private:
  // Reads the file and loads it if its bytes changed. Start, then the
  // watcher thread only.
  bool Reload(std::string* error);
  void OnEvent(runtime::WatchEvent event);
  // Whether the file the path names now is another one, or was rewritten,
  // since the last read (the tick's stat check).
  bool Changed() const;
  // The file to read now and its ConfigMap key (how to decode it); false with
  // `error` when a volume holds neither key or both.
  bool Resolve(std::filesystem::path* file, std::string* key,
               std::string* error) const;
  bool Fail(std::string error_text, std::string* error);

  const std::filesystem::path path_;
  SnapshotStore* const store_;
  const FileSourceOptions options_;
  std::optional<std::string> last_bytes_;  // watcher thread only (after Start)
  struct FileId {
    dev_t dev = 0;
    ino_t ino = 0;
    int64_t mtime_ns = 0;
    off_t size = -1;
    bool operator==(const FileId&) const = default;
  } last_id_;
  std::atomic<uint64_t> checks_{0};
  std::unique_ptr<runtime::DirWatcher> watcher_;
};

}  // namespace ax::dns
