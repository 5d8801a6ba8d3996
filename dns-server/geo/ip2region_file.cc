// Ip2RegionFile: validation of the super block and every index block, binary
// search lookups, and the walk over the ranges. The format and its reference
// are in ip2region_file.h.
#include "geo/ip2region_file.h"

#include <algorithm>
#include <optional>

#include "geo/family_tables.h"
#include "geo/range_table.h"

namespace ax::dns {
namespace {

constexpr size_t kBlockBytes = 12;
constexpr size_t kFields = 5;  // country|area|province|city|ISP

uint32_t ReadLe32(const uint8_t* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 |
         uint32_t{p[3]} << 24;
}

}  // namespace

std::shared_ptr<const Ip2RegionFile> Ip2RegionFile::Open(
    const std::string& path, std::string* error, const std::string& copy_dir) {
  std::optional<MappedFile> file = MappedFile::Open(path, error, copy_dir);
  if (!file) return nullptr;
  std::shared_ptr<Ip2RegionFile> db(new Ip2RegionFile(path, std::move(*file)));
  const std::string problem = db->Validate();
  if (!problem.empty()) {
    if (error != nullptr) *error = "geo database " + path + ": " + problem;
    return nullptr;
  }
  return db;
}

std::string Ip2RegionFile::Validate() {
  const std::span<const uint8_t> bytes = file_.bytes();
  const std::string size = std::to_string(bytes.size());
  if (bytes.size() < 8) {
    return "truncated: " + size + " bytes, no ip2region super block";
  }
  const uint32_t first = ReadLe32(bytes.data());
  const uint32_t last = ReadLe32(bytes.data() + 4);
  const std::string range = " (first " + std::to_string(first) + ", last " +
                            std::to_string(last) + ")";
  if (first < 8) return "the first index block lies in the super block" + range;
  if (last < first) return "the last index block lies before the first" + range;
  if ((last - first) % kBlockBytes != 0) {
    return "the index is not a whole number of 12-byte blocks" + range;
  }
  if (uint64_t{last} + kBlockBytes > bytes.size()) {
    return "the index blocks run past the end of the file" + range + ", " +
           size + " bytes";
  }
  first_block_ = first;
  block_count_ = (last - first) / kBlockBytes + 1;
  uint64_t next = 0;  // the first address after the previous block
  for (size_t i = 0; i < block_count_; ++i) {
    const Block block = ReadBlock(i);
    const auto where = [&] {
      return "index block " + std::to_string(i) + " (" +
             std::to_string(block.first) + ".." + std::to_string(block.last) +
             ")";
    };
    if (block.first > block.last) return where() + ": start above end";
    if (block.first < next) {
      return where() + ": overlaps or precedes the block before it";
    }
    Ip2RegionRecord record;
    if (block.pointer != 0) {
      if (const char* problem = Resolve(block.pointer, record)) {
        return where() + ": its record at offset " +
               std::to_string(block.pointer & 0xffffff) + ", length " +
               std::to_string(block.pointer >> 24) + ", " + problem + " (" +
               size + " bytes)";
      }
    }
    next = uint64_t{block.last} + 1;
  }
  return "";
}

Ip2RegionFile::Block Ip2RegionFile::ReadBlock(size_t index) const {
  const uint8_t* p = file_.bytes().data() + first_block_ + index * kBlockBytes;
  return {ReadLe32(p), ReadLe32(p + 4), ReadLe32(p + 8)};
}

const char* Ip2RegionFile::Resolve(uint32_t pointer,
                                   Ip2RegionRecord& record) const {
  const std::span<const uint8_t> bytes = file_.bytes();
  const uint32_t offset = pointer & 0xffffff;
  const uint32_t length = pointer >> 24;
  if (length < 4) return "is shorter than its 4-byte city id";
  if (uint64_t{offset} + length > bytes.size()) {
    return "runs past the end of the file";
  }
  const std::string_view text(
      reinterpret_cast<const char*>(bytes.data()) + offset + 4, length - 4);
  if (static_cast<size_t>(std::count(text.begin(), text.end(), '|')) <
      kFields - 1) {
    return "has fewer than five '|'-separated fields";
  }
  record.found = true;
  record.offset = offset;
  record.city_id = ReadLe32(bytes.data() + offset);
  record.text = text;
  return nullptr;
}

bool Ip2RegionFile::Lookup(const IpAddress& ip, Ip2RegionRecord& record) const {
  record = Ip2RegionRecord{};
  if (ip.family != IpFamily::kV4) return false;
  const uint32_t key = FamilyTables::KeyV4(ip);
  // Blocks below `low` start at or before the key (sorted, disjoint).
  size_t low = 0;
  size_t high = block_count_;
  while (low < high) {
    const size_t mid = low + (high - low) / 2;
    if (ReadBlock(mid).first <= key) {
      low = mid + 1;
    } else {
      high = mid;
    }
  }
  uint32_t gap_first = 0;
  if (low > 0) {
    const Block block = ReadBlock(low - 1);
    if (key <= block.last) {
      record.prefix_length =
          RangeTable<uint32_t>::ScopeWithin(key, block.first, block.last);
      return block.pointer == 0 || Resolve(block.pointer, record) == nullptr;
    }
    gap_first = block.last + 1;
  }
  const uint32_t gap_last =
      low < block_count_ ? ReadBlock(low).first - 1 : UINT32_MAX;
  record.prefix_length =
      RangeTable<uint32_t>::ScopeWithin(key, gap_first, gap_last);
  return true;
}

std::string_view Ip2RegionFile::Field(const Ip2RegionRecord& record,
                                      Ip2RegionField field) {
  if (!record.found) return {};
  std::string_view rest = record.text;
  for (int i = 0; i < static_cast<int>(field); ++i) {
    const size_t bar = rest.find('|');
    if (bar == std::string_view::npos) return {};
    rest.remove_prefix(bar + 1);
  }
  const std::string_view value = rest.substr(0, rest.find('|'));
  return value == "0" ? std::string_view() : value;
}

bool Ip2RegionFile::ForEachRange(
    const std::function<bool(const Ip2RegionRange&)>& visit,
    std::string* error) const {
  uint64_t next = 0;  // the first address not visited yet
  for (size_t i = 0; i < block_count_; ++i) {
    const Block block = ReadBlock(i);
    if (block.first > next) {
      const Ip2RegionRange gap{.first = static_cast<uint32_t>(next),
                               .last = block.first - 1};
      if (!visit(gap)) return false;
    }
    Ip2RegionRange range{.first = block.first, .last = block.last};
    if (block.pointer != 0) {
      // Validated on open: only a file changed under the mapping fails here.
      if (const char* problem = Resolve(block.pointer, range.record)) {
        if (error != nullptr) {
          *error = "geo database " + path_ + ": index block " +
                   std::to_string(i) + ": its record " + problem;
        }
        return false;
      }
    }
    if (!visit(range)) return false;
    next = uint64_t{block.last} + 1;
  }
  if (next <= UINT32_MAX) {
    const Ip2RegionRange gap{.first = static_cast<uint32_t>(next),
                             .last = UINT32_MAX};
    if (!visit(gap)) return false;
  }
  return true;
}

}  // namespace ax::dns
