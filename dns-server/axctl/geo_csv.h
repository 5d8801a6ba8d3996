// The CSV `axctl geodb build` compiles: a header line naming the columns,
// then one row per network or address range, fields quoted as RFC 4180 has
// it, text in UTF-8. Parsing and checking only: each row comes out as CIDRs
// and ISO codes, each problem as a line-numbered error. Which rows overlap
// and how they become an MMDB is geodb_build.cc's; nothing here reads or
// writes a file.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ax/ip.h"
#include "geo/subdivision_table.h"

namespace ax {

struct GeoCsvRow {
  int line = 0;  // where the row starts
  // `network`, or `start`..`end` as the fewest CIDRs covering exactly it.
  std::vector<IpPrefix> networks;
  std::string country;      // ISO 3166-1 alpha-2, upper case; "": absent
  std::string subdivision;  // ISO 3166-2 ("CN-GD"); "": absent
  std::string city;         // as written
  uint32_t asn = 0;         // 0: absent
  std::string isp;          // as written ("电信")
};

struct GeoCsvError {
  int line = 0;
  std::string message;  // "asn: 'x12' is not a number"
};

// Columns, in any order, named case-insensitively: `network` (a CIDR) or
// `start` and `end` (an inclusive address range of one family), and at least
// one of `country`, `subdivision` (an ISO 3166-2 code, its part after the
// dash, or a name `subdivisions` knows, in the row's country: "CN-GD", "GD",
// "Guangdong", "广东"), `city`, `asn` (a number, "AS" allowed before it),
// `isp`. Empty fields say nothing; blank lines are skipped. Returns the rows
// without problems in file order and adds every problem to `errors`; a bad
// header is one error and no rows.
std::vector<GeoCsvRow> ParseGeoCsv(std::string_view text,
                                   const dns::SubdivisionTable& subdivisions,
                                   std::vector<GeoCsvError>& errors);

}  // namespace ax
