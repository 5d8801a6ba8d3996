// The geo databases an axctl command reads, from the same flags ax-dns takes
// (--geo-db, --asn-db, --ipdb, --ip2region, --geo-schema, --geo-field,
// --geo-precedence, the switch --geo-cities), opened for direct lookups (a
// few addresses: reading the files beats compiling them).
#pragma once

#include <memory>
#include <string>

#include "axctl/args.h"
#include "geo/geo_resolver.h"

namespace ax {

// Whether any geo file was given.
bool HasGeoFiles(const Args& args);

// Null with `error` (naming the flag or the file) when a flag is malformed or
// a file does not open.
std::shared_ptr<const dns::GeoResolver> GeoResolverFromFlags(
    const Args& args, dns::GeoResolver::Mode mode, std::string* error);

// For commands where the files are optional: `out` the direct-lookup
// resolver, or null when no geo file was given; false (the reason printed to
// stderr) when one was given and did not open.
bool OptionalGeoResolver(const Args& args,
                         std::shared_ptr<const dns::GeoResolver>& out);

}  // namespace ax
