// ReportOutput (report_output.h): write(2) loops, no stdio buffering, so a
// line on stdout is complete when Write returns.
#include "sidecar/report_output.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace ax::probe {
namespace {

bool WriteAll(int fd, std::string_view data, std::string* error) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      *error = std::string("write: ") + std::strerror(errno);
      return false;
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

}  // namespace

bool ReportOutput::Write(std::string_view document, std::string* error) const {
  std::string text(document);
  text += '\n';
  if (target_ == "-") return WriteAll(STDOUT_FILENO, text, error);

  const std::filesystem::path final_path(target_);
  // Same directory: rename(2) is only atomic within one file system.
  const std::string temp =
      target_ + ".tmp." + std::to_string(static_cast<long>(::getpid()));
  const int fd =
      ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    *error = "open " + temp + ": " + std::strerror(errno);
    return false;
  }
  bool ok = WriteAll(fd, text, error);
  if (ok && ::fsync(fd) != 0) {
    *error = std::string("fsync: ") + std::strerror(errno);
    ok = false;
  }
  ::close(fd);
  if (ok && ::rename(temp.c_str(), final_path.c_str()) != 0) {
    *error = "rename to " + target_ + ": " + std::strerror(errno);
    ok = false;
  }
  if (!ok) {
    ::unlink(temp.c_str());
    *error = target_ + ": " + *error;
  }
  return ok;
}

}  // namespace ax::probe
