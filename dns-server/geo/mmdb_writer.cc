// MmdbWriter: the search tree as a trie of nodes built network by network,
// the data section with pointers to values written before, the metadata.
// Section and type layouts are the spec's ("MaxMind DB File Format
// Specification" 2.0); the reading side is libmaxminddb's (mmdb_file.h).
#include "geo/mmdb_writer.h"

#include <algorithm>

namespace ax::dns {
namespace {

// The longest payload a control byte can announce: 65,821 + 2^24 - 1.
constexpr size_t kMaxPayload = 16'843'036;
constexpr std::string_view kMetadataMarker = "\xAB\xCD\xEFMaxMind.com";

// Type numbers of the data section.
enum : int {
  kPointerType = 1,
  kStringType = 2,
  kUint16Type = 5,
  kUint32Type = 6,
  kMapType = 7,
  kUint64Type = 9,
  kArrayType = 11,
};

void PutBigEndian(std::string& out, uint64_t value, int bytes) {
  for (int i = bytes - 1; i >= 0; --i)
    out += static_cast<char>(value >> (8 * i));
}

// The control byte (and extended type byte) of a value of `type` whose
// payload is `size` bytes (maps, arrays: entries).
void PutControl(std::string& out, int type, size_t size) {
  uint8_t control = static_cast<uint8_t>(type <= 7 ? type << 5 : 0);
  int size_bytes = 0;
  size_t rest = size;
  if (size < 29) {
    control |= static_cast<uint8_t>(size);
  } else if (size < 285) {
    control |= 29;
    size_bytes = 1;
    rest = size - 29;
  } else if (size < 65'821) {
    control |= 30;
    size_bytes = 2;
    rest = size - 285;
  } else {
    control |= 31;
    size_bytes = 3;
    rest = size - 65'821;
  }
  out += static_cast<char>(control);
  if (type > 7) out += static_cast<char>(type - 7);
  PutBigEndian(out, rest, size_bytes);
}

int TypeOf(const MmdbValue& value) {
  switch (value.type) {
    case MmdbValue::Type::kString:
      return kStringType;
    case MmdbValue::Type::kUint16:
      return kUint16Type;
    case MmdbValue::Type::kUint32:
      return kUint32Type;
    case MmdbValue::Type::kUint64:
      return kUint64Type;
    case MmdbValue::Type::kMap:
      return kMapType;
    case MmdbValue::Type::kArray:
      return kArrayType;
  }
  return kStringType;
}

void PutString(std::string& out, std::string_view text) {
  PutControl(out, kStringType, text.size());
  out += text;
}

// Integers are written in as few bytes as they need (0 is no bytes).
void PutNumber(std::string& out, int type, uint64_t number) {
  int bytes = 0;
  while (bytes < 8 && (number >> (8 * bytes)) != 0) ++bytes;
  PutControl(out, type, static_cast<size_t>(bytes));
  PutBigEndian(out, number, bytes);
}

// `value` without pointers: the key values are deduplicated by, and how the
// metadata is written (its pointers would count from the metadata section).
void PutPlain(std::string& out, const MmdbValue& value) {
  switch (value.type) {
    case MmdbValue::Type::kString:
      PutString(out, value.text);
      return;
    case MmdbValue::Type::kUint16:
    case MmdbValue::Type::kUint32:
    case MmdbValue::Type::kUint64:
      PutNumber(out, TypeOf(value), value.number);
      return;
    case MmdbValue::Type::kMap:
      PutControl(out, kMapType, value.map.size());
      for (const MmdbValue::Entry& entry : value.map) {
        PutString(out, entry.key);
        PutPlain(out, entry.value);
      }
      return;
    case MmdbValue::Type::kArray:
      PutControl(out, kArrayType, value.array.size());
      for (const MmdbValue& item : value.array) PutPlain(out, item);
      return;
  }
}

std::string Plain(const MmdbValue& value) {
  std::string out;
  PutPlain(out, value);
  return out;
}

bool Fits(const MmdbValue& value) {
  switch (value.type) {
    case MmdbValue::Type::kString:
      return value.text.size() <= kMaxPayload;
    case MmdbValue::Type::kMap:
      return value.map.size() <= kMaxPayload &&
             std::all_of(value.map.begin(), value.map.end(),
                         [](const MmdbValue::Entry& entry) {
                           return entry.key.size() <= kMaxPayload &&
                                  Fits(entry.value);
                         });
    case MmdbValue::Type::kArray:
      return value.array.size() <= kMaxPayload &&
             std::all_of(value.array.begin(), value.array.end(), Fits);
    default:
      return true;
  }
}

// Pointer sizes by the offset they reach (001SSVVV plus SS + 1 bytes).
size_t PointerSize(uint64_t offset) {
  return offset < 2'048         ? 2
         : offset < 526'336     ? 3
         : offset < 134'744'064 ? 4
                                : 5;
}

void PutPointer(std::string& out, uint64_t offset) {
  const int type = kPointerType << 5;
  if (offset < 2'048) {
    out += static_cast<char>(type | offset >> 8);
    PutBigEndian(out, offset, 1);
  } else if (offset < 526'336) {
    const uint64_t v = offset - 2'048;
    out += static_cast<char>(type | 1 << 3 | v >> 16);
    PutBigEndian(out, v, 2);
  } else if (offset < 134'744'064) {
    const uint64_t v = offset - 526'336;
    out += static_cast<char>(type | 2 << 3 | v >> 24);
    PutBigEndian(out, v, 3);
  } else {
    out += static_cast<char>(type | 3 << 3);
    PutBigEndian(out, offset, 4);
  }
}

// The data section: each value written once; met again, a pointer to the
// first copy when that is shorter (pointers never point at pointers: only
// values written out are remembered).
class DataSection {
 public:
  // The offset of `record`, written now unless an identical value was.
  uint64_t WriteRecord(const MmdbValue& record) {
    if (auto it = written_.find(Plain(record)); it != written_.end()) {
      return it->second.offset;
    }
    const uint64_t offset = bytes_.size();
    Write(record);
    return offset;
  }

  const std::string& bytes() const { return bytes_; }

 private:
  struct Written {
    uint64_t offset = 0;
    size_t size = 0;
  };

  void Write(const MmdbValue& value) {
    std::string key = Plain(value);
    if (auto it = written_.find(key);
        it != written_.end() &&
        PointerSize(it->second.offset) < it->second.size) {
      PutPointer(bytes_, it->second.offset);
      return;
    }
    const uint64_t offset = bytes_.size();
    switch (value.type) {
      case MmdbValue::Type::kMap:
        PutControl(bytes_, kMapType, value.map.size());
        for (const MmdbValue::Entry& entry : value.map) {
          Write(MmdbValue::String(entry.key));
          Write(entry.value);
        }
        break;
      case MmdbValue::Type::kArray:
        PutControl(bytes_, kArrayType, value.array.size());
        for (const MmdbValue& item : value.array) Write(item);
        break;
      default:
        bytes_ += key;
    }
    written_.try_emplace(std::move(key),
                         Written{offset, bytes_.size() - offset});
  }

  std::string bytes_;
  std::unordered_map<std::string, Written> written_;  // by plain encoding
};

bool Overlaps(const IpPrefix& a, const IpPrefix& b) {
  const int length = std::min(a.length, b.length);
  return a.address.family == b.address.family &&
         Mask(a.address, length) == Mask(b.address, length);
}

}  // namespace

MmdbValue MmdbValue::String(std::string text) {
  return {.type = Type::kString, .text = std::move(text)};
}
MmdbValue MmdbValue::Uint16(uint16_t number) {
  return {.type = Type::kUint16, .number = number};
}
MmdbValue MmdbValue::Uint32(uint32_t number) {
  return {.type = Type::kUint32, .number = number};
}
MmdbValue MmdbValue::Uint64(uint64_t number) {
  return {.type = Type::kUint64, .number = number};
}
MmdbValue MmdbValue::Map(std::vector<Entry> map) {
  return {.type = Type::kMap, .map = std::move(map)};
}
MmdbValue MmdbValue::Array(std::vector<MmdbValue> array) {
  return {.type = Type::kArray, .array = std::move(array)};
}

MmdbWriter::MmdbWriter(MmdbWriterOptions options)
    : options_(std::move(options)) {}

std::vector<bool> MmdbWriter::PathOf(const IpPrefix& network) const {
  std::vector<bool> path;
  if (network.address.family == IpFamily::kV4 && options_.ip_version == 6) {
    path.assign(96, false);
  }
  for (int i = 0; i < network.length; ++i) {
    path.push_back(network.address.Bit(i));
  }
  return path;
}

uint32_t MmdbWriter::InTheWay(const std::vector<bool>& path) const {
  if (path.empty()) {
    return nodes_[0][0] != kEmpty ? nodes_[0][0] : nodes_[0][1];
  }
  uint32_t node = 0;
  for (size_t depth = 0; depth < path.size(); ++depth) {
    const uint32_t child = nodes_[node][path[depth]];
    if (child == kEmpty || (child & kLeaf) || depth + 1 == path.size()) {
      return child;
    }
    node = child;
  }
  return kEmpty;
}

uint32_t MmdbWriter::MakePath(const std::vector<bool>& path) {
  uint32_t node = 0;
  for (size_t depth = 0; depth + 1 < path.size(); ++depth) {
    if (nodes_[node][path[depth]] == kEmpty) {
      nodes_[node][path[depth]] = static_cast<uint32_t>(nodes_.size());
      nodes_.push_back({kEmpty, kEmpty});
    }
    node = nodes_[node][path[depth]];
  }
  return node;
}

const MmdbWriter::Leaf& MmdbWriter::AnyLeafUnder(uint32_t child) const {
  while (!(child & kLeaf)) {
    child = nodes_[child][0] != kEmpty ? nodes_[child][0] : nodes_[child][1];
  }
  return leaves_[child & ~kLeaf];
}

bool MmdbWriter::Insert(const IpPrefix& network, const MmdbValue& record,
                        uint64_t tag, std::string* error,
                        std::optional<uint64_t>* overlapped) {
  auto name = [&] { return FormatPrefix(network); };
  if (network.address.family == IpFamily::kV6) {
    if (options_.ip_version == 4) {
      *error = name() + " is IPv6, and the database IPv4 only";
      return false;
    }
    for (const char* reserved : {"::", "::ffff:0:0"}) {
      const IpPrefix place{*ParseIp(reserved), 96};
      if (Overlaps(network, place)) {
        *error = name() + " overlaps " + FormatPrefix(place) +
                 ", where an IPv6 database keeps IPv4 addresses: write "
                 "IPv4 networks as IPv4";
        return false;
      }
    }
  }
  if (!Fits(record)) {
    *error = name() +
             ": a value of its record is longer than the format allows "
             "(16,843,036 bytes or entries)";
    return false;
  }
  const std::vector<bool> path = PathOf(network);
  if (const uint32_t other = InTheWay(path); other != kEmpty) {
    const Leaf& leaf = AnyLeafUnder(other);
    *error = name() + " overlaps " + FormatPrefix(leaf.network);
    *overlapped = leaf.tag;
    return false;
  }
  if (nodes_.size() + path.size() >= kLeaf || leaves_.size() >= kLeaf) {
    *error = name() + ": too many networks for one database";
    return false;
  }
  const auto [it, added] =
      record_ids_.try_emplace(Plain(record), records_.size());
  if (added) records_.push_back(record);
  const uint32_t child = kLeaf | static_cast<uint32_t>(leaves_.size());
  leaves_.push_back({network, it->second, tag});
  if (path.empty()) {
    nodes_[0] = {child, child};  // an IPv4 database's /0: its two halves
  } else {
    nodes_[MakePath(path)][path.back()] = child;
  }
  return true;
}

void MmdbWriter::AliasIpv4Mapped() {
  std::vector<bool> path(96, false);
  const uint32_t ipv4 = InTheWay(path);
  if (ipv4 == kEmpty) return;
  std::fill(path.begin() + 80, path.end(), true);
  nodes_[MakePath(path)][1] = ipv4;
}

std::optional<std::string> MmdbWriter::Build(std::string* error) {
  if (options_.build_epoch == 0) {
    *error = "build_epoch 0: readers take it for a missing build time";
    return std::nullopt;
  }
  if (options_.ip_version == 6) AliasIpv4Mapped();
  DataSection data;
  std::vector<uint64_t> record_offsets;
  record_offsets.reserve(records_.size());
  for (const MmdbValue& record : records_) {
    record_offsets.push_back(data.WriteRecord(record));
  }
  const uint64_t node_count = nodes_.size();
  const uint64_t largest =
      node_count + 16 +
      (record_offsets.empty()
           ? 0
           : *std::max_element(record_offsets.begin(), record_offsets.end()));
  int record_size = options_.record_size;
  if (record_size == 0) {
    record_size = largest >> 24 == 0 ? 24 : largest >> 28 == 0 ? 28 : 32;
  }
  if (largest >> record_size != 0 || data.bytes().size() > UINT32_MAX) {
    *error = "the data outgrow the format: record values need more than " +
             std::to_string(record_size) + " bits";
    return std::nullopt;
  }
  auto value_of = [&](uint32_t child) -> uint64_t {
    if (child == kEmpty) return node_count;
    if (child & kLeaf) {
      return node_count + 16 + record_offsets[leaves_[child & ~kLeaf].record];
    }
    return child;
  };
  std::string out;
  out.reserve(nodes_.size() * record_size / 4 + 16 + data.bytes().size());
  for (const auto& node : nodes_) {
    const uint64_t left = value_of(node[0]);
    const uint64_t right = value_of(node[1]);
    if (record_size == 28) {
      PutBigEndian(out, left & 0xFFFFFF, 3);
      out += static_cast<char>((left >> 24) << 4 | right >> 24);
      PutBigEndian(out, right & 0xFFFFFF, 3);
    } else {
      PutBigEndian(out, left, record_size / 8);
      PutBigEndian(out, right, record_size / 8);
    }
  }
  out.append(16, '\0');
  out += data.bytes();
  out += kMetadataMarker;
  std::vector<MmdbValue::Entry> description;
  for (const auto& [language, text] : options_.description) {
    description.push_back({language, MmdbValue::String(text)});
  }
  std::vector<MmdbValue> languages;
  for (const std::string& language : options_.languages) {
    languages.push_back(MmdbValue::String(language));
  }
  PutPlain(
      out,
      MmdbValue::Map({
          {"binary_format_major_version", MmdbValue::Uint16(2)},
          {"binary_format_minor_version", MmdbValue::Uint16(0)},
          {"build_epoch", MmdbValue::Uint64(options_.build_epoch)},
          {"database_type", MmdbValue::String(options_.database_type)},
          {"description", MmdbValue::Map(std::move(description))},
          {"ip_version",
           MmdbValue::Uint16(static_cast<uint16_t>(options_.ip_version))},
          {"languages", MmdbValue::Array(std::move(languages))},
          {"node_count", MmdbValue::Uint32(static_cast<uint32_t>(node_count))},
          {"record_size",
           MmdbValue::Uint16(static_cast<uint16_t>(record_size))},
      }));
  return out;
}

}  // namespace ax::dns
