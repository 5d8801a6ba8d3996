// One open MMDB file (libmaxminddb, memory-mapped): validated on open, looked
// up by IpAddress, values read by path without copying. Owns the MMDB_s; shared
// by every resolver built on it. Lookups and getters never throw and never
// allocate.
#pragma once

#include <maxminddb.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "ax/ip.h"

namespace ax::dns {

// A lookup result. `entry` is only meaningful when `found`.
struct MmdbRecord {
  bool found = false;
  // Length of the database network holding the address, in the address's own
  // family (an IPv4 address in an IPv6 tree reports 0..32, not 96..128). Also
  // set when nothing was found: the empty network's length.
  int prefix_length = -1;
  MMDB_entry_s entry{};
};

// Outcome of reading one value: kMissing covers a path absent from the record
// and a value of another type (a misconfigured field path); kCorrupt is a
// broken data section.
enum class MmdbField : uint8_t { kFound, kMissing, kCorrupt };

class MmdbFile {
 public:
  // Opens and validates `path`: libmaxminddb's own metadata checks, then sane
  // metadata (IP version, record size, node count, database type) and test
  // lookups that decode their records. On failure returns null and sets
  // `error` to a message naming the file.
  static std::shared_ptr<const MmdbFile> Open(const std::string& path,
                                              std::string* error);

  ~MmdbFile();
  MmdbFile(const MmdbFile&) = delete;
  MmdbFile& operator=(const MmdbFile&) = delete;

  const std::string& path() const { return path_; }
  std::string_view database_type() const {
    return mmdb_.metadata.database_type;
  }
  int ip_version() const { return mmdb_.metadata.ip_version; }
  uint64_t build_epoch() const { return mmdb_.metadata.build_epoch; }
  uint32_t node_count() const { return mmdb_.metadata.node_count; }

  // False only when libmaxminddb reported an error (corrupt tree, or an IPv6
  // address in an IPv4-only database); `record.found` says whether a record
  // exists.
  bool Lookup(const IpAddress& ip, MmdbRecord& record) const;

  // `path` is a null-terminated array of map keys and array indices, as
  // MMDB_aget_value takes it. Strings are views into the mapped file, valid
  // while this MmdbFile lives.
  MmdbField GetString(const MmdbRecord& record, const char* const* path,
                      std::string_view& out) const;
  // Accepts double and float values.
  MmdbField GetDouble(const MmdbRecord& record, const char* const* path,
                      double& out) const;
  // Accepts any integer type whose value fits in 32 unsigned bits.
  MmdbField GetUint32(const MmdbRecord& record, const char* const* path,
                      uint32_t& out) const;

 private:
  explicit MmdbFile(std::string path) : path_(std::move(path)) {}
  MmdbField Get(const MmdbRecord& record, const char* const* path,
                MMDB_entry_data_s& data) const;
  // Post-open checks libmaxminddb does not make; returns "" when sane.
  std::string Validate() const;

  std::string path_;
  MMDB_s mmdb_{};
};

}  // namespace ax::dns
