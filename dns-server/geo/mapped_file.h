// A whole file mapped read-only, for the geo readers that parse their format
// themselves (ipdb_file.h, ip2region_file.h; libmaxminddb maps MMDBs on its
// own). Owns the mapping: unmapped with the object. Optionally maps a private
// copy (private_copy.h) so a file rewritten in place cannot change under it.
// No format knowledge here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace ax::dns {

class MappedFile {
 public:
  // Maps `path` (a regular file; an empty one maps to no bytes). With
  // `copy_dir`, what is mapped is a private copy made there. Nullopt with
  // `error` ("geo database PATH: ...") when it cannot.
  static std::optional<MappedFile> Open(const std::string& path,
                                        std::string* error,
                                        const std::string& copy_dir = "");

  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&&) = delete;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  std::span<const uint8_t> bytes() const { return {data_, size_}; }

  // Drops this process's copy of the pages (they stay in the page cache and
  // are read again on the next touch): after compiling a file, lookups touch
  // few of them. Contents are unaffected.
  void ReleasePages() const;

 private:
  MappedFile(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  const uint8_t* data_ = nullptr;  // null when size_ is 0
  size_t size_ = 0;
};

}  // namespace ax::dns
