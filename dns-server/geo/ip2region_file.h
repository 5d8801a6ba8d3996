// One open ip2region v1 ".db" file (lionsoul2014/ip2region before its xdb
// format; the npm package ip2region ships it as data/ip2region.db): mapped,
// validated on open, looked up by IPv4 address, every range walked for
// compiling. IPv4 only: the same package's ipv6wry.db is another format (the
// zxinc IPv6 database) and is not read here. Lookups and Field never throw
// and never allocate; their views point into the mapping. What the fields
// mean (Chinese names) is not this file's business (zh_names.h).
//
// The format, as the package's own reader reads it (dist/lib/ipv4.js of npm
// ip2region 2.3.0): a super block of two little-endian u32, the file offsets
// of the first and the last index block; index blocks of 12 bytes, sorted by
// address: start IP (LE u32), end IP (LE u32, inclusive), data pointer (LE
// u32: the low 3 bytes the record's file offset, the high byte its length; 0:
// no record); a record is a LE u32 city id, then UTF-8 text
// "国家|区域|省份|城市|ISP" (country|area|province|city|ISP) with "0" for
// unknown. The 8 KiB header index after the super block (a coarse index for
// readers that cannot map the file) and a trailing comment are not read.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "ax/ip.h"
#include "geo/mapped_file.h"

namespace ax::dns {

// A lookup result; the rest is only meaningful when `found`.
struct Ip2RegionRecord {
  bool found = false;
  // Lookups: the shortest prefix length whose block around the address lies
  // inside its range (or inside the gap between ranges when nothing was
  // found). Walks: -1 (a range is not one network).
  int prefix_length = -1;
  // The record's file offset: ranges with the same offset share the record
  // (decode each once).
  uint32_t offset = 0;
  uint32_t city_id = 0;
  std::string_view text;  // "国家|区域|省份|城市|ISP"
};

enum class Ip2RegionField : uint8_t {
  kCountry,
  kArea,
  kProvince,
  kCity,
  kIsp,
};

// One range as ForEachRange visits it.
struct Ip2RegionRange {
  uint32_t first = 0;
  uint32_t last = 0;  // inclusive
  Ip2RegionRecord record;
};

class Ip2RegionFile {
 public:
  // Opens and validates `path`: the super block, and every index block
  // (sorted, not overlapping, its record inside the file with five fields).
  // With `copy_dir`, a private copy is mapped (mapped_file.h). Null with
  // `error` naming the file and the problem.
  static std::shared_ptr<const Ip2RegionFile> Open(
      const std::string& path, std::string* error,
      const std::string& copy_dir = "");

  const std::string& path() const { return path_; }
  size_t block_count() const { return block_count_; }

  // False for an IPv6 address (not served) or a corrupt record;
  // `record.found` says whether a record exists.
  bool Lookup(const IpAddress& ip, Ip2RegionRecord& record) const;

  // A field of a found record; "" when unknown ("0" in the file, as the
  // package's reader maps it) or absent.
  static std::string_view Field(const Ip2RegionRecord& record,
                                Ip2RegionField field);

  // Visits the ranges in address order, the gaps between them included (as
  // records not found), so that they partition the IPv4 space: each `first`
  // becomes a range start (AppendRange in range_table.h). Stops early when
  // `visit` returns false. False with `error` when a record is corrupt.
  bool ForEachRange(const std::function<bool(const Ip2RegionRange&)>& visit,
                    std::string* error) const;

  // Drops this process's copy of the file's pages (MappedFile::ReleasePages).
  void ReleasePages() const { file_.ReleasePages(); }

 private:
  struct Block {
    uint32_t first = 0;
    uint32_t last = 0;
    uint32_t pointer = 0;
  };

  Ip2RegionFile(std::string path, MappedFile file)
      : path_(std::move(path)), file_(std::move(file)) {}
  // Checks the super block and every index block; returns "" when sane.
  std::string Validate();
  Block ReadBlock(size_t index) const;
  // Fills `record` (but prefix_length) from a non-zero data pointer. The
  // problem when the record is out of bounds or malformed, else null.
  const char* Resolve(uint32_t pointer, Ip2RegionRecord& record) const;

  std::string path_;
  MappedFile file_;
  size_t first_block_ = 0;  // file offset of index block 0
  size_t block_count_ = 0;
};

}  // namespace ax::dns
