// Client address -> GeoInfo (country, subdivision, city, ASN, carrier,
// location, and the database network prefix length for ECS scope), from any
// set of geo sources: MMDB files read with libmaxminddb (field paths
// configurable so both the GeoIP2 schema and flat schemas work), IPIP.net
// ipdb and ip2region files; each field group from the best source that says
// something (geo_precedence.h). Subdivisions come out as ISO 3166-2 codes
// whatever the database stores. Served from a compiled form (compiled_geo.h)
// or the files directly.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ax/classify.h"
#include "ax/ip.h"
#include "geo/compiled_geo.h"
#include "geo/geo_fields.h"
#include "geo/geo_precedence.h"
#include "geo/ip2region_file.h"
#include "geo/ipdb_file.h"
#include "geo/mmdb_file.h"
#include "geo/subdivision_table.h"

namespace ax::dns {

struct GeoDatabases {
  // Location databases (country, subdivision, city, coordinates; the ASN and
  // carrier where records carry them). IPv4-only databases are skipped for
  // IPv6 addresses. dbip ships IPv4 and IPv6 as two files: list both.
  std::vector<std::shared_ptr<const MmdbFile>> geo;
  // ASN databases.
  std::vector<std::shared_ptr<const MmdbFile>> asn;
  // IPIP.net ipdb files (place, city, carrier) and ip2region files (IPv4).
  std::vector<std::shared_ptr<const IpdbFile>> ipdb;
  std::vector<std::shared_ptr<const Ip2RegionFile>> ip2region;
  // Which kind supplies which field; within a kind, files in the order above.
  GeoPrecedence precedence;
  // Whether lookups report the city (for match.cities). Off, the sources'
  // cities are dropped: compiled, dbip's city level triples the tables
  // (48 -> 163 MB), as neighbouring networks then rarely merge.
  bool cities = false;
  // Null: SubdivisionTable::Builtin().
  std::shared_ptr<const SubdivisionTable> subdivisions;
};

class GeoResolver {
 public:
  enum class Mode : uint8_t {
    // Compiles the databases into range tables (CompiledGeo): seconds for the
    // real dbip files, then fast lookups; the files' pages are released.
    kCompiled,
    // Reads the databases on every lookup: for a handful of lookups (axctl).
    kDirect,
  };
  // What a lookup must fill beyond country, subdivision, city, ASN and ISP.
  enum class Detail : uint8_t { kClassify, kLocation };

  // Null with `error` when compiling finds a corrupt database.
  static std::shared_ptr<const GeoResolver> Create(GeoDatabases databases,
                                                   GeoFieldPaths paths,
                                                   Mode mode,
                                                   std::string* error);
  // Holds C pointers into its own path strings.
  GeoResolver(const GeoResolver&) = delete;
  GeoResolver& operator=(const GeoResolver&) = delete;

  // Fills `geo` (the location only for kLocation: it is read from the
  // databases, as only geo-closest answers and explanations need it). Its
  // string_views stay valid while the resolver lives. geo_prefix_length is
  // the shortest prefix around the address over which everything filled
  // stays the same as far as the databases tell; -1 when no database was
  // consulted. Returns false when a database read failed (counted as a geo
  // failure; `geo` then holds what could be read). Never throws, never
  // allocates.
  bool Lookup(const IpAddress& ip, GeoInfo& geo, Detail detail) const;

  const GeoDatabases& databases() const { return databases_; }
  const GeoFieldPaths& paths() const { return paths_; }
  // Every source with its ranks, in GeoDatabases order.
  const RankedSources& sources() const { return sources_; }
  // Null in kDirect mode.
  const CompiledGeo* compiled() const { return compiled_.get(); }
  // Unique per resolver in this process (addresses can be reused): tables
  // derived from this resolver's remember it.
  uint64_t generation() const { return generation_; }

 private:
  GeoResolver(GeoDatabases databases, GeoFieldPaths paths);

  // Everything but the location straight from the sources.
  bool ReadDatabases(const IpAddress& ip, GeoInfo& geo) const;
  // Adds the location: from the first location MMDB with a record.
  bool Locate(const IpAddress& ip, GeoInfo& geo) const;

  GeoDatabases databases_;
  GeoFieldPaths paths_;
  CFieldPath latitude_, longitude_;
  RankedSources sources_;
  std::unique_ptr<const CompiledGeo> compiled_;
  uint64_t generation_;
};

}  // namespace ax::dns
