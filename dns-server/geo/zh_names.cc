// ZhCountryToIso: a binary search over the generated rows; ZhPlaceToIso: the
// country, then the province through the subdivision table.
#include "geo/zh_names.h"

#include <algorithm>

#include "geo/zh_country_names_data.h"

namespace ax::dns {
namespace {

bool IsContinuation(char c) { return (static_cast<uint8_t>(c) & 0xc0) == 0x80; }

// The subdivision of China named by the longest leading part of `value` (two
// characters or more, not all of it); "" when none. Only for Chinese text: an
// ASCII start could read as a code suffix ("GD...").
std::string_view LeadingProvince(std::string_view value,
                                 const SubdivisionTable& subdivisions) {
  if (value.empty() || static_cast<uint8_t>(value[0]) < 0x80) return {};
  const auto characters = [](std::string_view text) {
    return std::count_if(text.begin(), text.end(),
                         [](char c) { return !IsContinuation(c); });
  };
  for (size_t end = value.size() - 1; end > 0; --end) {
    if (IsContinuation(value[end])) continue;  // not a character boundary
    const std::string_view prefix = value.substr(0, end);
    if (characters(prefix) < 2) break;
    const std::string_view code = subdivisions.ToIso("CN", prefix);
    if (!code.empty()) return code;
  }
  return {};
}

}  // namespace

std::string_view ZhCountryToIso(std::string_view name) {
  const auto it =
      std::lower_bound(kZhCountryNames.begin(), kZhCountryNames.end(), name,
                       [](const ZhCountryName& row, std::string_view key) {
                         return row.name < key;
                       });
  if (it == kZhCountryNames.end() || it->name != name) return {};
  return it->code;
}

IsoPlace ZhPlaceToIso(std::string_view country, std::string_view province,
                      const SubdivisionTable& subdivisions) {
  IsoPlace place{.country = ZhCountryToIso(country)};
  if (place.country.empty()) return place;
  place.subdivision = subdivisions.ToIso(place.country, province);
  if (place.country != "CN") return place;
  if (place.subdivision.empty()) {
    place.subdivision = LeadingProvince(province, subdivisions);
  }
  // ISO 3166-2 lists them under CN; ISO 3166-1 gives them their own codes.
  for (const std::string_view own : {"CN-HK", "CN-MO", "CN-TW"}) {
    if (place.subdivision == own) {
      place.country = own.substr(3);
      place.subdivision = {};
    }
  }
  return place;
}

std::string_view ZhCityName(std::string_view city) {
  constexpr std::string_view kShi = "市";
  if (city.size() > kShi.size() && city.ends_with(kShi)) {
    city.remove_suffix(kShi.size());
  }
  return city;
}

}  // namespace ax::dns
