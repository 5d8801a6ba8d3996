// FamilyTables: one RangeTable per address family, keyed the way every
// compiled geo table is (IPv4: the address; IPv6: its upper 64 bits, as
// clients are classified no finer than a /64), and Project, which derives
// new tables by mapping each distinct value. Shared by the compiled
// databases (values: country/subdivision/ASN) and the per-snapshot region
// tables (values: a region match).
#pragma once

#include <cstdint>
#include <type_traits>
#include <vector>

#include "ax/ip.h"
#include "ax/prefetch.h"
#include "geo/range_table.h"

namespace ax::dns {

struct FamilyTables {
  // A value meaning "the databases split this IPv6 /64 further: read them".
  static constexpr uint32_t kDeeper = UINT32_MAX - 1;

  struct Hit {
    uint32_t value = 0;
    int prefix_length = 0;  // in the address's family, at most 32 / 64
  };

  RangeTable<uint32_t> v4;
  RangeTable<uint64_t> v6;

  Hit Find(const IpAddress& ip) const {
    if (ip.family == IpFamily::kV4) {
      const auto hit = v4.Find(KeyV4(ip));
      return {hit.value, hit.prefix_length};
    }
    const auto hit = v6.Find(KeyV6(ip));
    return {hit.value, hit.prefix_length};
  }

  // Starts loading what Find(ip) reads first; PrefetchRanges, a while later
  // (once that has arrived), what it reads next (RangeTable's addresses).
  void Prefetch(const IpAddress& ip) const {
    ax::Prefetch(ip.family == IpFamily::kV4 ? v4.BucketAddress(KeyV4(ip))
                                            : v6.BucketAddress(KeyV6(ip)));
  }
  void PrefetchRanges(const IpAddress& ip) const {
    ax::Prefetch(ip.family == IpFamily::kV4 ? v4.RangesAddress(KeyV4(ip))
                                            : v6.RangesAddress(KeyV6(ip)));
  }

  // Tables over the same ranges with every value v (below `value_count`)
  // replaced by map(v), called once per distinct value; kDeeper stays.
  // Neighbours that map alike merge, so the result is often much smaller.
  // `extra_index_bits`: RangeTable's.
  template <typename Map>
  FamilyTables Project(size_t value_count, Map map,
                       int extra_index_bits = 0) const {
    constexpr uint32_t kUnset = UINT32_MAX;
    std::vector<uint32_t> mapped(value_count, kUnset);
    auto project = [&](const auto& table) {
      using Table = std::remove_cvref_t<decltype(table)>;
      using Key = typename Table::KeyType;
      RangeList<Key> list;
      table.ForEach([&](Key start, uint32_t value) {
        if (value != kDeeper) {
          if (mapped[value] == kUnset) mapped[value] = map(value);
          value = mapped[value];
        }
        AppendRange(list, start, value);
      });
      return Table(list, extra_index_bits);
    };
    return {project(v4), project(v6)};
  }

  static uint32_t KeyV4(const IpAddress& ip) {
    return uint32_t{ip.bytes[0]} << 24 | uint32_t{ip.bytes[1]} << 16 |
           uint32_t{ip.bytes[2]} << 8 | ip.bytes[3];
  }
  static uint64_t KeyV6(const IpAddress& ip) {
    uint64_t key = 0;
    for (int i = 0; i < 8; ++i) key = key << 8 | ip.bytes[i];
    return key;
  }
};

}  // namespace ax::dns
