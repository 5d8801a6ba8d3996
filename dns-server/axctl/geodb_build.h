// `axctl geodb build CSV... -o OUT.mmdb`: the operator's own geo data
// compiled into an MMDB file laid out as the default geoip2 schema reads it
// (geo/geo_fields.h: country.iso_code, subdivisions.0.iso_code,
// city.names.en, autonomous_system_number, isp), for ax-dns and axctl's
// --geo-db. Joins the CSV rows (geo_csv.h) to the writer
// (geo/mmdb_writer.h), reports rows that overlap, and writes the file only
// when every row is good; neither the CSV format nor the file format lives
// here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "axctl/args.h"

namespace ax {

struct GeoCsvFile {
  std::string name;  // as errors name it: "data.csv"
  std::string text;
};

struct GeodbBuildOptions {
  int ip_version = 6;  // 4: IPv4 rows only
  std::string description;
  uint64_t build_epoch = 0;  // Unix seconds; 0: now
};

struct GeodbBuilt {
  std::string bytes;  // the MMDB file
  size_t rows = 0;
  size_t networks = 0;  // rows' networks (ranges count their CIDRs)
};

// The MMDB holding every row of `files`; nullopt with every problem in
// `errors`, each "FILE:LINE: what is wrong", in file and line order.
std::optional<GeodbBuilt> BuildGeoMmdb(const std::vector<GeoCsvFile>& files,
                                       const GeodbBuildOptions& options,
                                       std::vector<std::string>& errors);

// How many errors the command prints before "and N more".
inline constexpr size_t kMaxBuildErrors = 20;

// Returns the exit code: 0 written, 1 bad rows or unwritable files (nothing
// written then), 2 bad usage.
int GeodbBuildCommand(const Args& args);

}  // namespace ax
