// The current GeoResolver behind one atomic pointer (readers take one reference
// per query), and its reload: when any configured file changes (inode, size,
// mtime), the new set is opened and validated off to the side and swapped in
// only if valid; otherwise the last good resolver stays and the error is kept.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "geo/geo_fields.h"
#include "geo/geo_resolver.h"

namespace ax::dns {

struct GeoStoreConfig {
  std::vector<std::string> geo_files;  // in lookup order, e.g. dbip v4 then v6
  std::vector<std::string> asn_files;
  std::string subdivisions_file;  // override rows; "" for the built-in table
  GeoFieldPaths fields;
  GeoResolver::Mode mode = GeoResolver::Mode::kCompiled;
  // Where each file is copied before it is mapped (private_copy.h); "": the
  // files themselves are mapped (only for files replaced by rename).
  std::string copy_dir;
  std::vector<std::string> ipdb_files;
  std::vector<std::string> ip2region_files;
  GeoPrecedence precedence;
  bool cities = false;  // GeoDatabases::cities
};

class GeoStore {
 public:
  using Clock = std::chrono::system_clock;
  enum class Reload : uint8_t { kUnchanged, kReloaded, kFailed };

  struct Status {
    uint64_t reloads = 0;   // successful loads, the first included
    uint64_t failures = 0;  // rejected file sets, each counted once
    // For "geo database stale" alerts; nullopt before the first load.
    std::optional<Clock::time_point> last_success;
    std::string last_error;  // of the latest attempt; "" once one succeeds
  };

  explicit GeoStore(GeoStoreConfig config);

  // Null until the first successful ReloadIfChanged.
  std::shared_ptr<const GeoResolver> Current() const {
    return current_.load(std::memory_order_acquire);
  }
  // Counts the resolvers loaded so far (see SnapshotStore::serves).
  uint64_t loads() const { return loads_.load(std::memory_order_acquire); }

  // Checks the files and reloads them when changed (the first call always
  // loads). kFailed while the files are a set that failed: it is not retried
  // until a file changes again, and counted once in status().failures. Safe to
  // call from several threads; meant for one periodic caller. Files should be
  // replaced by rename (as ConfigMap volumes and scripts/setup.sh do): a file
  // rewritten in place changes under the mapping of the resolver in use.
  Reload ReloadIfChanged(Clock::time_point now);

  Status status() const;

 private:
  struct FileId {
    dev_t dev = 0;
    ino_t ino = 0;
    off_t size = 0;
    int64_t mtime_ns = 0;
    bool operator==(const FileId&) const = default;
  };
  using FileIds = std::map<std::string, FileId>;

  // Identities of every configured file; false with `error` when one cannot
  // be stat'ed.
  bool Identify(FileIds& ids, std::string& error) const;
  // Opens every file (reusing unchanged open ones) into a resolver; null with
  // `error` on the first invalid file.
  std::shared_ptr<const GeoResolver> Build(const FileIds& ids,
                                           std::string& error);
  Reload Fail(FileIds ids, std::string error);
  using OpenFiles = std::map<std::string, std::shared_ptr<const void>>;
  // Appends each of `paths` to `out` and `files`: the open file when it is
  // unchanged since the current resolver loaded it, else opened with `open`.
  // False with `error` when one fails or a path was seen before.
  template <typename File, typename Open>
  bool OpenAll(const std::vector<std::string>& paths, const FileIds& ids,
               Open open, OpenFiles& files,
               std::vector<std::shared_ptr<const File>>& out,
               std::string& error) const;

  const GeoStoreConfig config_;
  std::atomic<std::shared_ptr<const GeoResolver>> current_;
  std::atomic<uint64_t> loads_{0};  // bumped after each store to current_

  mutable std::mutex mu_;  // guards everything below
  FileIds loaded_ids_;     // of the current resolver
  std::optional<FileIds> failed_ids_;
  // Files of the current resolver, by path; each path is of one format
  // (Build refuses a path listed under two).
  OpenFiles open_files_;
  Status status_;
};

}  // namespace ax::dns
