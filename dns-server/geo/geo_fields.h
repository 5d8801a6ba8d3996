// Where the geo fields live inside MMDB records, and the parsers the command
// line uses to set them: a named schema ("geoip2", "dbip") and per-field
// overrides
// ("country=country_code", "subdivision=subdivisions.0.iso_code").
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ax::dns {

// MMDB lookup paths, one key or array index per element ("subdivisions", "0",
// "iso_code"). Defaults: the GeoIP2 schema.
struct GeoFieldPaths {
  std::vector<std::string> country{"country", "iso_code"};
  // An ISO 3166-2 code, its part after the dash (GeoIP2: "GD") or a name
  // (dbip: "Guangdong"); SubdivisionTable turns each into "CN-GD".
  std::vector<std::string> subdivision{"subdivisions", "0", "iso_code"};
  std::vector<std::string> latitude{"location", "latitude"};
  std::vector<std::string> longitude{"location", "longitude"};
  std::vector<std::string> asn{"autonomous_system_number"};
  std::vector<std::string> city{"city", "names", "en"};
  // The carrier's name: top-level "isp", as GeoIP2-ISP and the files
  // `axctl geodb build` writes have it; empty: not read.
  std::vector<std::string> isp{"isp"};

  bool operator==(const GeoFieldPaths&) const = default;
};

// A path as MMDB_aget_value takes it: null-terminated, its C strings
// pointing into `path`, which must outlive it and not change.
using CFieldPath = std::vector<const char*>;
CFieldPath ToCFieldPath(const std::vector<std::string>& path);

// "geoip2" (MaxMind GeoIP2/GeoLite2 City + ASN) or "dbip" (the flat records of
// @ip-location-db/*-mmdb: country_code, state1, latitude, longitude). nullopt
// for any other name.
std::optional<GeoFieldPaths> GeoFieldPathsForSchema(std::string_view schema);

// "subdivisions.0.iso_code" -> {"subdivisions", "0", "iso_code"}. Rejects empty
// specs and empty segments.
std::optional<std::vector<std::string>> ParseFieldPath(std::string_view spec,
                                                       std::string* error);

// Applies "FIELD=PATH" (FIELD one of country, subdivision, latitude,
// longitude, asn, city, isp) to `paths`. False with `error` set on a bad
// assignment.
bool SetFieldPath(GeoFieldPaths& paths, std::string_view assignment,
                  std::string* error);

}  // namespace ax::dns
