// FileSource: read-through-symlinks, compare, load. The store decides whether
// the document is good; this file only decides when to read it.
#include "server/file_source.h"

#include <sys/stat.h>

#include <cerrno>
#include <fstream>
#include <sstream>

#include "server/log.h"

namespace ax::dns {

FileSource::FileSource(std::filesystem::path file, SnapshotStore* store,
                       FileSourceOptions options)
    : file_(std::move(file)), store_(store), options_(options) {}

bool FileSource::Start(std::string* error) {
  const bool ok = Reload(error);
  std::filesystem::path dir = file_.parent_path();
  if (dir.empty()) dir = ".";
  watcher_ = std::make_unique<DirWatcher>(
      dir, WatchOptions{options_.debounce, options_.tick},
      [this](WatchEvent event) { OnEvent(event); });
  return ok;
}

void FileSource::Stop() { watcher_.reset(); }

void FileSource::OnEvent(WatchEvent event) {
  if (event == WatchEvent::kTick) {
    struct stat st {};
    // stat() follows symlinks: the identity of whatever the path names now.
    if (::stat(file_.c_str(), &st) != 0) return;
    const FileId id{st.st_dev, st.st_ino,
                    st.st_mtim.tv_sec * 1'000'000'000LL + st.st_mtim.tv_nsec,
                    st.st_size};
    if (id == last_id_) return;
  }
  std::string error;
  Reload(&error);
}

bool FileSource::Reload(std::string* error) {
  struct stat st {};
  std::ifstream in(file_, std::ios::binary);
  if (!in || ::stat(file_.c_str(), &st) != 0) {
    *error =
        "cannot read snapshot file " + file_.string() + ": " + ErrnoText(errno);
    Log(LogLevel::kError, "snapshot file unreadable, keeping the last good one",
        {{"file", file_.string()}, {"error", *error}});
    store_->RecordError(*error);
    return false;
  }
  last_id_ = {st.st_dev, st.st_ino,
              st.st_mtim.tv_sec * 1'000'000'000LL + st.st_mtim.tv_nsec,
              st.st_size};
  std::ostringstream bytes;
  bytes << in.rdbuf();
  std::string text = std::move(bytes).str();
  if (text == last_bytes_) return true;
  const LoadOutcome outcome =
      store_->Load(text, "file:" + file_.string(), error);
  // Remember rejected bytes too: the same broken file is reported once, not
  // on every directory event.
  last_bytes_ = std::move(text);
  return outcome != LoadOutcome::kRejected;
}

}  // namespace ax::dns
