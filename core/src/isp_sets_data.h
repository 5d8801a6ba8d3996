// Internal to core/src: the built-in ISP sets as generated data
// (isp_sets_data.cc, written by scripts/geo/gen_isp_sets.py from
// scripts/geo/isp_set_rules.csv and the pinned ASN and dbip data). Merging them
// with declared IspSets lives in isp_sets.cc.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace ax {

struct BuiltinIspSet {
  std::string_view name;
  std::span<const uint32_t> asns;           // ascending
  std::span<const std::string_view> names;  // as databases spell them
};

// In the rules file's order.
const std::vector<BuiltinIspSet>& BuiltinIspSets();

}  // namespace ax
