// axctl's geo flags -> a GeoStore config -> one resolver.
#include "axctl/geo_flags.h"

#include <iostream>

#include "geo/geo_store.h"

namespace ax {

bool HasGeoFiles(const Args& args) {
  return args.Has("--geo-db") || args.Has("--asn-db") || args.Has("--ipdb") ||
         args.Has("--ip2region");
}

std::shared_ptr<const dns::GeoResolver> GeoResolverFromFlags(
    const Args& args, dns::GeoResolver::Mode mode, std::string* error) {
  dns::GeoStoreConfig config{.geo_files = args.All("--geo-db"),
                             .asn_files = args.All("--asn-db"),
                             .mode = mode,
                             .ipdb_files = args.All("--ipdb"),
                             .ip2region_files = args.All("--ip2region"),
                             .cities = args.Has("--geo-cities")};
  const std::string schema =
      args.Has("--geo-schema") ? args.Get("--geo-schema") : "geoip2";
  const auto fields = dns::GeoFieldPathsForSchema(schema);
  if (!fields) {
    *error = "--geo-schema: unknown schema '" + schema + "' (geoip2 or dbip)";
    return nullptr;
  }
  config.fields = *fields;
  for (const std::string& assignment : args.All("--geo-field")) {
    if (!dns::SetFieldPath(config.fields, assignment, error)) {
      *error = "--geo-field: " + *error;
      return nullptr;
    }
  }
  for (const std::string& assignment : args.All("--geo-precedence")) {
    if (!dns::SetGeoPrecedence(config.precedence, assignment, error)) {
      *error = "--geo-precedence: " + *error;
      return nullptr;
    }
  }
  dns::GeoStore store(std::move(config));
  store.ReloadIfChanged(dns::GeoStore::Clock::now());
  std::shared_ptr<const dns::GeoResolver> resolver = store.Current();
  if (!resolver) *error = "geo databases: " + store.status().last_error;
  return resolver;
}

bool OptionalGeoResolver(const Args& args,
                         std::shared_ptr<const dns::GeoResolver>& out) {
  out = nullptr;
  if (!HasGeoFiles(args)) return true;
  std::string error;
  out = GeoResolverFromFlags(args, dns::GeoResolver::Mode::kDirect, &error);
  if (!out) std::cerr << error << "\n";
  return out != nullptr;
}

}  // namespace ax
