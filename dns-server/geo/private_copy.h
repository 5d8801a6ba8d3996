// A private copy of a file that others may rewrite in place. Geo databases are
// memory-mapped, and a file overwritten under a live mapping reads as garbage,
// or kills the process with SIGBUS where it was truncated (a hostPath or PVC
// updated with cp, not by rename). Copied into a directory of ours under a
// unique name and unlinked once the caller has opened it, the copy is the only
// one its mapping ever sees. No parsing here.
#pragma once

#include <optional>
#include <string>

namespace ax::dns {

class PrivateCopy {
 public:
  // Copies `path` into `dir`. Nullopt with `error` when either cannot be
  // used, or when the file changed while it was copied (a writer is at work:
  // the next reload tries again).
  static std::optional<PrivateCopy> Make(const std::string& path,
                                         const std::string& dir,
                                         std::string* error);

  PrivateCopy(PrivateCopy&& other) noexcept;
  PrivateCopy& operator=(PrivateCopy&&) = delete;
  PrivateCopy(const PrivateCopy&) = delete;
  PrivateCopy& operator=(const PrivateCopy&) = delete;
  ~PrivateCopy();  // unlinks the copy; what is open or mapped stays readable

  const std::string& path() const { return path_; }

 private:
  explicit PrivateCopy(std::string path) : path_(std::move(path)) {}

  std::string path_;  // "" once moved from
};

}  // namespace ax::dns
