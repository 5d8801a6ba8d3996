// The rows of ZhCountryToIso (zh_names.h), generated into
// zh_country_names_data.cc by scripts/geo/gen_zh_country_names.py. Only
// zh_names.cc reads them.
#pragma once

#include <span>
#include <string_view>

namespace ax::dns {

struct ZhCountryName {
  std::string_view name;  // "美国"
  std::string_view code;  // "US"
};

// Sorted by name, compared as std::string_view does (UTF-8 bytes).
extern const std::span<const ZhCountryName> kZhCountryNames;

}  // namespace ax::dns
