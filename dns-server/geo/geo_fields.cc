// Field path presets and parsers for the geo command-line flags.
#include "geo/geo_fields.h"

namespace ax::dns {

CFieldPath ToCFieldPath(const std::vector<std::string>& path) {
  CFieldPath c_path;
  c_path.reserve(path.size() + 1);
  for (const std::string& key : path) c_path.push_back(key.c_str());
  c_path.push_back(nullptr);
  return c_path;
}

std::optional<GeoFieldPaths> GeoFieldPathsForSchema(std::string_view schema) {
  if (schema == "geoip2") return GeoFieldPaths{};
  if (schema == "dbip") {
    return GeoFieldPaths{.country = {"country_code"},
                         .subdivision = {"state1"},
                         .latitude = {"latitude"},
                         .longitude = {"longitude"},
                         .asn = {"autonomous_system_number"},
                         .city = {"city"},
                         .isp = {}};
  }
  return std::nullopt;
}

std::optional<std::vector<std::string>> ParseFieldPath(std::string_view spec,
                                                       std::string* error) {
  std::vector<std::string> path;
  size_t start = 0;
  while (true) {
    size_t dot = spec.find('.', start);
    std::string_view segment = spec.substr(start, dot - start);
    if (segment.empty()) {
      if (error) {
        *error = "bad field path \"" + std::string(spec) +
                 "\": empty segment (expected e.g. subdivisions.0.iso_code)";
      }
      return std::nullopt;
    }
    path.emplace_back(segment);
    if (dot == std::string_view::npos) return path;
    start = dot + 1;
  }
}

bool SetFieldPath(GeoFieldPaths& paths, std::string_view assignment,
                  std::string* error) {
  size_t eq = assignment.find('=');
  if (eq == std::string_view::npos) {
    if (error) {
      *error = "bad field assignment \"" + std::string(assignment) +
               "\": expected FIELD=PATH, e.g. country=country_code";
    }
    return false;
  }
  std::string_view field = assignment.substr(0, eq);
  std::vector<std::string>* target = field == "country" ? &paths.country
                                     : field == "subdivision"
                                         ? &paths.subdivision
                                     : field == "latitude"  ? &paths.latitude
                                     : field == "longitude" ? &paths.longitude
                                     : field == "asn"       ? &paths.asn
                                     : field == "city"      ? &paths.city
                                     : field == "isp"       ? &paths.isp
                                                            : nullptr;
  if (target == nullptr) {
    if (error) {
      *error = "unknown geo field \"" + std::string(field) +
               "\" (known: country, subdivision, latitude, longitude, asn, "
               "city, isp)";
    }
    return false;
  }
  std::optional<std::vector<std::string>> path =
      ParseFieldPath(assignment.substr(eq + 1), error);
  if (!path) return false;
  *target = std::move(*path);
  return true;
}

}  // namespace ax::dns
