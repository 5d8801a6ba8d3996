// MappedFile: open (through runtime::Fd), fstat, mmap, and munmap on
// destruction.
#include "geo/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <cerrno>
#include <utility>

#include "ax/runtime/net.h"
#include "geo/private_copy.h"

namespace ax::dns {

std::optional<MappedFile> MappedFile::Open(const std::string& path,
                                           std::string* error,
                                           const std::string& copy_dir) {
  const auto fail = [&](const std::string& what) {
    if (error != nullptr) *error = "geo database " + path + ": " + what;
    return std::nullopt;
  };
  std::string copy_error;
  const std::optional<PrivateCopy> copy =
      copy_dir.empty() ? std::optional<PrivateCopy>()
                       : PrivateCopy::Make(path, copy_dir, &copy_error);
  if (!copy_dir.empty() && !copy) {
    if (error != nullptr) *error = std::move(copy_error);
    return std::nullopt;
  }
  // The copy is unlinked when `copy` goes out of scope; the mapping keeps it.
  const std::string& name = copy ? copy->path() : path;
  const runtime::Fd fd(::open(name.c_str(), O_RDONLY | O_CLOEXEC));
  struct stat st {};
  if (!fd.valid() || ::fstat(fd.get(), &st) != 0) {
    return fail(runtime::ErrnoText(errno));
  }
  if (!S_ISREG(st.st_mode)) return fail("not a regular file");
  const auto size = static_cast<size_t>(st.st_size);
  if (size == 0) return MappedFile(nullptr, 0);  // mmap refuses length 0
  void* data = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd.get(), 0);
  if (data == MAP_FAILED) return fail("mmap: " + runtime::ErrnoText(errno));
  return MappedFile(static_cast<const uint8_t*>(data), size);
}

MappedFile::MappedFile(MappedFile&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)) {}

MappedFile::~MappedFile() {
  if (data_ != nullptr) ::munmap(const_cast<uint8_t*>(data_), size_);
}

void MappedFile::ReleasePages() const {
  // The mapping is private and read-only: dropping it only forgets pages.
  if (data_ != nullptr) {
    ::madvise(const_cast<uint8_t*>(data_), size_, MADV_DONTNEED);
  }
}

}  // namespace ax::dns
