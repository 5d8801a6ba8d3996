// FileSource: read-through-symlinks, compare, load. The store decides whether
// the document is good; this file only decides when to read it.
#include "server/file_source.h"

#include <sys/stat.h>

#include <cerrno>
#include <fstream>
#include <sstream>

#include "ax/route_table_configmap.h"
#include "ax/runtime/log.h"
#include "ax/snapshot_limits.h"

namespace ax::dns {

FileSource::FileSource(std::filesystem::path path, SnapshotStore* store,
                       FileSourceOptions options)
    : path_(std::move(path)), store_(store), options_(options) {}

bool FileSource::Start(std::string* error) {
  const bool ok = Reload(error);
  std::error_code ec;
  std::filesystem::path dir =
      std::filesystem::is_directory(path_, ec) ? path_ : path_.parent_path();
  if (dir.empty()) dir = ".";
  watcher_ = std::make_unique<runtime::DirWatcher>(
      dir, runtime::WatchOptions{options_.debounce, options_.tick},
      [this](runtime::WatchEvent event) { OnEvent(event); });
  return ok;
}

void FileSource::Stop() { watcher_.reset(); }

bool FileSource::Resolve(std::filesystem::path* file, std::string* key,
                         std::string* error) const {
  std::error_code ec;
  if (!std::filesystem::is_directory(path_, ec)) {
    *file = path_;
    *key = path_.extension() == ".gz" ? kRouteTableGzipKey : kRouteTableJsonKey;
    return true;
  }
  const bool text = std::filesystem::exists(path_ / kRouteTableJsonKey, ec);
  const bool gzip = std::filesystem::exists(path_ / kRouteTableGzipKey, ec);
  if (text == gzip) {
    const std::string json = kRouteTableJsonKey, gz = kRouteTableGzipKey;
    *error = "route-table volume " + path_.string() + " holds " +
             (text ? "both " + json + " and " + gz
                   : "neither " + json + " nor " + gz);
    return false;
  }
  *key = text ? kRouteTableJsonKey : kRouteTableGzipKey;
  *file = path_ / *key;
  return true;
}

bool FileSource::Changed() const {
  std::filesystem::path file;
  std::string key, ignored;
  struct stat st {};
  // stat() follows symlinks: the identity of whatever the path names now.
  if (!Resolve(&file, &key, &ignored) || ::stat(file.c_str(), &st) != 0) {
    return false;
  }
  const FileId id{st.st_dev, st.st_ino,
                  st.st_mtim.tv_sec * 1'000'000'000LL + st.st_mtim.tv_nsec,
                  st.st_size};
  return id != last_id_;
}

void FileSource::OnEvent(runtime::WatchEvent event) {
  if (event != runtime::WatchEvent::kTick || Changed()) {
    std::string error;
    Reload(&error);
  }
  checks_.fetch_add(1, std::memory_order_release);
}

bool FileSource::Fail(std::string error_text, std::string* error) {
  runtime::Log(runtime::LogLevel::kError,
               "snapshot file unusable, keeping the last good one",
               {{"path", path_.string()}, {"error", error_text}});
  store_->RecordError(error_text);
  *error = std::move(error_text);
  return false;
}

bool FileSource::Reload(std::string* error) {
  std::filesystem::path file;
  std::string key;
  if (!Resolve(&file, &key, error)) return Fail(*error, error);
  struct stat st {};
  std::ifstream in(file, std::ios::binary);
  if (!in || ::stat(file.c_str(), &st) != 0) {
    return Fail("cannot read snapshot file " + file.string() + ": " +
                    runtime::ErrnoText(errno),
                error);
  }
  last_id_ = {st.st_dev, st.st_ino,
              st.st_mtim.tv_sec * 1'000'000'000LL + st.st_mtim.tv_nsec,
              st.st_size};
  // Text or gzip, a file over the document limit is refused unread.
  if (static_cast<uint64_t>(st.st_size) > kSnapshotMaxDocumentBytes) {
    return Fail(file.string() + ": " + std::to_string(st.st_size) +
                    " bytes, over the snapshot limit of " +
                    std::to_string(kSnapshotMaxDocumentBytes),
                error);
  }
  std::ostringstream bytes;
  bytes << in.rdbuf();
  std::string raw = std::move(bytes).str();
  if (raw == last_bytes_) return true;
  // Remember rejected bytes too: the same broken file is reported once, not
  // on every directory event.
  last_bytes_ = raw;
  DecodeRouteTableResult decoded = DecodeRouteTablePayload(key, raw);
  if (decoded.error) {
    return Fail(file.string() + ": " + decoded.error->ToString(), error);
  }
  const LoadOutcome outcome = store_->Load(decoded.table->snapshot_json,
                                           "file:" + file.string(), error);
  return outcome != LoadOutcome::kRejected;
}

}  // namespace ax::dns
