// MmdbWriter: a MaxMind DB file (format 2.0,
// https://maxmind.github.io/MaxMind-DB/) built in memory from networks and
// their records: the binary search tree (24-, 28- or 32-bit records, the
// smallest that fits), a data section where every distinct value is written
// once (a record, or any part of one, met again is a pointer to the first
// copy), and the metadata. In an IPv6 database IPv4 networks live at ::/96,
// where libmaxminddb and the other readers look IPv4 addresses up, and
// ::ffff:0:0/96 (IPv4-mapped addresses) leads to the same subtree, as in
// MaxMind's own databases. Pure: it returns the file's bytes (writing them is
// the caller's) and knows nothing of what the records mean. Reading MMDB files
// is mmdb_file.h's.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ax/ip.h"

namespace ax::dns {

// A value of the data section: the types records and metadata are made of
// here (the format has more).
struct MmdbValue {
  enum class Type : uint8_t {
    kString,
    kUint16,
    kUint32,
    kUint64,
    kMap,
    kArray
  };
  struct Entry;  // of a map: a key and its value

  Type type = Type::kString;
  std::string text;              // kString: UTF-8
  uint64_t number = 0;           // kUint16, kUint32, kUint64
  std::vector<Entry> map;        // kMap: written in this order
  std::vector<MmdbValue> array;  // kArray

  static MmdbValue String(std::string text);
  static MmdbValue Uint16(uint16_t number);
  static MmdbValue Uint32(uint32_t number);
  static MmdbValue Uint64(uint64_t number);
  static MmdbValue Map(std::vector<Entry> map);
  static MmdbValue Array(std::vector<MmdbValue> array);
};

struct MmdbValue::Entry {
  std::string key;
  MmdbValue value;
};

struct MmdbWriterOptions {
  int ip_version = 6;  // 4: IPv4 only; 6: both families
  std::string database_type;
  std::map<std::string, std::string> description;  // language -> text
  std::vector<std::string> languages;
  uint64_t build_epoch = 0;  // Unix seconds; libmaxminddb refuses 0
  // 24, 28 or 32; 0: the smallest that holds every record value.
  int record_size = 0;
};

class MmdbWriter {
 public:
  explicit MmdbWriter(MmdbWriterOptions options);

  // Adds `network` -> `record`, remembering `tag` (the caller's name for the
  // network, e.g. the line it came from). False with `error` naming the
  // network when it cannot be stored: an IPv6 network in an IPv4 database, an
  // IPv6 network overlapping ::/96 or ::ffff:0:0/96 (IPv4's place in an IPv6
  // database: write IPv4 networks instead), a string or container too long
  // for the format, or a network overlapping one added before — then
  // `overlapped` is that one's tag. A /0 of an IPv4 database is stored as its
  // two halves (the root of the tree is a node).
  bool Insert(const IpPrefix& network, const MmdbValue& record, uint64_t tag,
              std::string* error, std::optional<uint64_t>* overlapped);

  // The file. Call once, after the last Insert. Nullopt with `error` when
  // the data outgrow the format (record values past 32 bits) or the build
  // epoch is 0.
  std::optional<std::string> Build(std::string* error);

 private:
  // A child in the trie: kEmpty, a node index, or kLeaf | a leaf index.
  static constexpr uint32_t kEmpty = 0;  // node 0 is the root, never a child
  static constexpr uint32_t kLeaf = 0x80000000u;

  // A network stored.
  struct Leaf {
    IpPrefix network;
    uint32_t record = 0;  // index into records_
    uint64_t tag = 0;
  };

  // The network's bits from the root of this tree (IPv4 under ::/96 in an
  // IPv6 tree).
  std::vector<bool> PathOf(const IpPrefix& network) const;
  // The child value in the way of storing `path` (a leaf on it or at its
  // end, or a node at its end), or kEmpty.
  uint32_t InTheWay(const std::vector<bool>& path) const;
  // Creates the nodes down `path` (nothing may be in the way) and returns
  // the node whose child `path.back()` is the slot it ends in.
  uint32_t MakePath(const std::vector<bool>& path);
  // Any leaf under the child value `child` (a node or a leaf).
  const Leaf& AnyLeafUnder(uint32_t child) const;
  // Points ::ffff:0:0/96 at what ::/96 holds.
  void AliasIpv4Mapped();

  MmdbWriterOptions options_;
  std::vector<std::array<uint32_t, 2>> nodes_{{kEmpty, kEmpty}};
  std::vector<Leaf> leaves_;
  std::vector<MmdbValue> records_;                        // distinct records
  std::unordered_map<std::string, uint32_t> record_ids_;  // by encoding
};

}  // namespace ax::dns
