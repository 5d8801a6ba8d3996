// Shared by the ipdb and ip2region reader tests: tiny ipdb and ip2region v1
// files built in memory (formats in dns-server/geo/ipdb_file.h and
// ip2region_file.h), laid out as their packers lay them out, with the parts
// exposed so tests can break them one at a time; and the check that a walk
// partitions the key space. Test code only.
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "ax/ip.h"
#include "geo_test_support.h"

namespace ax::dns::testing {

inline void PutBe32(std::string& out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out += char(v >> shift);
}
inline void PutLe32(std::string& out, uint32_t v) {
  for (int shift = 0; shift < 32; shift += 8) out += char(v >> shift);
}

// An ipdb file before serialising: metadata, nodes (two children each), and
// the records section (starting with the packer's node_count self-loop).
struct IpdbImage {
  nlohmann::json meta;
  std::vector<std::array<uint32_t, 2>> nodes;
  std::string records;

  std::string Bytes() const {
    std::string data;
    for (const auto& node : nodes) {
      PutBe32(data, node[0]);
      PutBe32(data, node[1]);
    }
    data += records;
    const std::string json = meta.dump();
    std::string out;
    PutBe32(out, static_cast<uint32_t>(json.size()));
    return out + json + data;
  }
  // Node value of the record at `offset` in `records`.
  uint32_t RecordNode(size_t offset) const {
    return static_cast<uint32_t>(nodes.size() + offset);
  }
};

// Networks ("1.0.0.0/24" or IPv6; IPv4 under ::ffff:0:0/96) with their
// records (tab-separated fields of every language), inserted into a trie in
// the order given: a network must not lie inside an earlier one. Every
// network left out reads as no record (child == node_count).
inline IpdbImage BuildIpdb(
    const std::vector<std::pair<std::string, std::string>>& networks,
    const std::vector<std::string>& fields, int ip_version = 3,
    nlohmann::json languages = {{"CN", 0}}) {
  constexpr int64_t kEmpty = -1;
  std::vector<std::array<int64_t, 2>> trie{{kEmpty, kEmpty}};
  std::vector<std::string> texts;
  for (const auto& [text, record] : networks) {
    const IpPrefix prefix = ParsePrefix(text).value();
    std::vector<int> bits;
    if (prefix.address.family == IpFamily::kV4) {
      for (int i = 0; i < 96; ++i) bits.push_back(i >= 80);
    }
    for (int i = 0; i < prefix.length; ++i) {
      bits.push_back(prefix.address.Bit(i));
    }
    int64_t node = 0;
    for (size_t depth = 0; depth + 1 < bits.size(); ++depth) {
      const int64_t child = trie[node][bits[depth]];
      EXPECT_GE(child, kEmpty) << text << " inside an earlier network";
      if (child == kEmpty) {
        trie[node][bits[depth]] = static_cast<int64_t>(trie.size());
        trie.push_back({kEmpty, kEmpty});
      }
      node = trie[node][bits[depth]];
    }
    trie[node][bits.back()] = -2 - static_cast<int64_t>(texts.size());
    texts.push_back(record);
  }
  IpdbImage image;
  const auto node_count = static_cast<uint32_t>(trie.size());
  PutBe32(image.records, node_count);  // the packer's self-loop node
  PutBe32(image.records, node_count);
  std::vector<size_t> offsets;
  for (const std::string& text : texts) {
    offsets.push_back(image.records.size());
    image.records += char(text.size() >> 8);
    image.records += char(text.size());
    image.records += text;
  }
  for (const auto& node : trie) {
    std::array<uint32_t, 2> out{};
    for (int bit = 0; bit < 2; ++bit) {
      const int64_t child = node[bit];
      out[bit] = child >= 0 ? static_cast<uint32_t>(child)
                 : child == kEmpty
                     ? node_count
                     : node_count + static_cast<uint32_t>(offsets[-2 - child]);
    }
    image.nodes.push_back(out);
  }
  image.meta = {{"build", 1789565555},
                {"ip_version", ip_version},
                {"languages", std::move(languages)},
                {"node_count", node_count},
                {"total_size", image.nodes.size() * 8 + image.records.size()},
                {"fields", fields}};
  return image;
}

// An ip2region v1 file: inclusive ranges in order with (city id, text).
struct Ip2RegionRow {
  const char* first;
  const char* last;
  uint32_t city_id;
  std::string text;  // "国家|区域|省份|城市|ISP"
};

inline uint32_t V4(const char* text) {
  const IpAddress ip = ParseIp(text).value();
  return uint32_t{ip.bytes[0]} << 24 | uint32_t{ip.bytes[1]} << 16 |
         uint32_t{ip.bytes[2]} << 8 | ip.bytes[3];
}

// Super block, records, index blocks (the header index real files carry
// between the super block and the records is not read, so not written).
// The first index block sits at ReadLe32(bytes, 0).
inline std::string BuildIp2Region(const std::vector<Ip2RegionRow>& ranges) {
  std::string records;
  std::vector<uint32_t> pointers;
  for (const Ip2RegionRow& range : ranges) {
    const size_t length = 4 + range.text.size();
    pointers.push_back(
        static_cast<uint32_t>(length << 24 | (8 + records.size())));
    PutLe32(records, range.city_id);
    records += range.text;
  }
  std::string index;
  for (size_t i = 0; i < ranges.size(); ++i) {
    PutLe32(index, V4(ranges[i].first));
    PutLe32(index, V4(ranges[i].last));
    PutLe32(index, pointers[i]);
  }
  const auto first = static_cast<uint32_t>(8 + records.size());
  std::string out;
  PutLe32(out, first);
  PutLe32(out, static_cast<uint32_t>(first + index.size() - 12));
  return out + records + index;
}

inline uint32_t ReadLe32(const std::string& bytes, size_t at) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = v << 8 | static_cast<uint8_t>(bytes[at + i]);
  return v;
}

inline void WriteLe32(std::string& bytes, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) bytes[at + i] = char(v >> (8 * i));
}

// "" when `networks` (as visited: each with .key and .prefix_length) are
// aligned, sorted, disjoint and cover a key space of `key_bits` (32: IPv4;
// 64: the upper halves of IPv6 addresses); else the first problem.
template <typename Network>
std::string PartitionProblem(const std::vector<Network>& networks,
                             int key_bits) {
  const auto low_bits = [](int bits) {
    return bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  };
  uint64_t next = 0;
  bool covered = false;  // up to the last key
  for (size_t i = 0; i < networks.size(); ++i) {
    const uint64_t host = low_bits(key_bits - networks[i].prefix_length);
    if (covered || networks[i].key != next || (networks[i].key & host) != 0) {
      return "network " + std::to_string(i) + " (key " +
             std::to_string(networks[i].key) + "/" +
             std::to_string(networks[i].prefix_length) +
             ") is not the next one, at " + std::to_string(next);
    }
    covered = (networks[i].key | host) == low_bits(key_bits);
    next = (networks[i].key | host) + 1;
  }
  return covered ? "" : "the networks stop at " + std::to_string(next);
}

// Every network of `db`'s walk of `family` (IpdbNetwork, MmdbNetwork...),
// in walk order; false with `error` when the walk failed.
template <typename Db, typename Network>
bool CollectNetworks(const Db& db, IpFamily family,
                     std::vector<Network>& networks, std::string* error) {
  return db.ForEachNetwork(
      family,
      [&](const Network& network) {
        networks.push_back(network);
        return true;
      },
      error);
}

// A broken file and a part of the error that must name what is wrong.
struct BrokenFile {
  const char* name;
  std::string bytes;
  const char* message;
};

// Each of `cases`, written as NAME`extension`, is refused by File::Open with
// an error naming the file and the problem.
template <typename File>
void ExpectEachRefused(std::span<const BrokenFile> cases,
                       const std::string& extension) {
  ScratchDir dir;
  for (const BrokenFile& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string path = dir.File(c.name + extension);
    std::ofstream(path, std::ios::binary) << c.bytes;
    std::string error;
    EXPECT_EQ(File::Open(path, &error), nullptr);
    EXPECT_NE(error.find("geo database " + path + ": "), std::string::npos)
        << error;
    EXPECT_NE(error.find(c.message), std::string::npos) << error;
  }
}

// `count` seeded corruptions of `good` (1 to 4 bytes overwritten each),
// opened with `open(bytes, &error)`: each is refused naming the file, or
// handed to `use(db)`, which must stay in bounds (the suites also run under
// ASan and UBSan). Returns how many opened.
template <typename Open, typename Use>
int OpenCorruptCopies(const std::string& good, uint64_t seed, int count,
                      Open open, Use use) {
  std::mt19937_64 rng(seed);
  int opened = 0;
  for (int i = 0; i < count; ++i) {
    std::string bytes = good;
    for (int n = 1 + i % 4; n > 0; --n) {
      bytes[rng() % bytes.size()] = static_cast<char>(rng());
    }
    std::string error;
    const auto db = open(bytes, &error);
    if (db == nullptr) {
      EXPECT_NE(error.find("geo database "), std::string::npos) << error;
      continue;
    }
    ++opened;
    use(*db);
  }
  return opened;
}

}  // namespace ax::dns::testing
