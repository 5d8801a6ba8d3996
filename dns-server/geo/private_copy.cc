// PrivateCopy: mkostemp in the directory, copy_file_range to the end, and the
// source's identity compared before and after.
#include "geo/private_copy.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "ax/runtime/net.h"

namespace ax::dns {
namespace {

bool SameFile(const struct stat& a, const struct stat& b) {
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino &&
         a.st_size == b.st_size && a.st_mtim.tv_sec == b.st_mtim.tv_sec &&
         a.st_mtim.tv_nsec == b.st_mtim.tv_nsec;
}

}  // namespace

std::optional<PrivateCopy> PrivateCopy::Make(const std::string& path,
                                             const std::string& dir,
                                             std::string* error) {
  const auto fail = [&](const std::string& what) {
    *error = "geo database " + path + ": " + what;
    return std::nullopt;
  };
  runtime::Fd in(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  struct stat before {};
  if (!in.valid() || ::fstat(in.get(), &before) != 0) {
    return fail(runtime::ErrnoText(errno));
  }
  std::string name = dir + "/ax-geo-XXXXXX";
  runtime::Fd out(::mkostemp(name.data(), O_CLOEXEC));
  if (!out.valid()) {
    return fail("cannot make a private copy in " + dir + ": " +
                runtime::ErrnoText(errno));
  }
  PrivateCopy copy(name);  // unlinked on every path out
  for (off_t left = before.st_size; left > 0;) {
    const ssize_t n = ::copy_file_range(in.get(), nullptr, out.get(), nullptr,
                                        static_cast<size_t>(left), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      return fail("copying to " + dir + ": " +
                  (n == 0 ? std::string("the file got shorter")
                          : runtime::ErrnoText(errno)));
    }
    left -= n;
  }
  struct stat after {};
  struct stat now {};
  if (::fstat(in.get(), &after) != 0 || ::stat(path.c_str(), &now) != 0 ||
      !SameFile(before, after) || !SameFile(before, now)) {
    return fail("changed while it was being copied; trying again later");
  }
  return copy;
}

PrivateCopy::PrivateCopy(PrivateCopy&& other) noexcept
    : path_(std::move(other.path_)) {
  other.path_.clear();
}

PrivateCopy::~PrivateCopy() {
  if (!path_.empty()) ::unlink(path_.c_str());
}

}  // namespace ax::dns
