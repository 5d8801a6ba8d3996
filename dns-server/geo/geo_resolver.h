// Client address -> GeoInfo (country, subdivision, ASN, location, and the
// database network prefix length for ECS scope), from MMDB files read with
// libmaxminddb. Field paths are configurable so both the GeoIP2 schema and flat
// schemas work; subdivisions come out as ISO 3166-2 codes whatever the database
// stores.
#pragma once

#include <memory>
#include <vector>

#include "ax/classify.h"
#include "ax/ip.h"
#include "geo/geo_fields.h"
#include "geo/mmdb_file.h"
#include "geo/subdivision_table.h"

namespace ax::dns {

struct GeoDatabases {
  // Location databases (country, subdivision, coordinates), consulted in order
  // until one holds a record for the address; IPv4-only databases are skipped
  // for IPv6 addresses. dbip ships IPv4 and IPv6 as two files: list both.
  std::vector<std::shared_ptr<const MmdbFile>> geo;
  // ASN databases, same rule. When empty, the ASN is read from the geo record.
  std::vector<std::shared_ptr<const MmdbFile>> asn;
  // Null: SubdivisionTable::Builtin().
  std::shared_ptr<const SubdivisionTable> subdivisions;
};

class GeoResolver {
 public:
  GeoResolver(GeoDatabases databases, GeoFieldPaths paths);
  // Holds C pointers into its own path strings.
  GeoResolver(const GeoResolver&) = delete;
  GeoResolver& operator=(const GeoResolver&) = delete;

  // Fills `geo`. Its string_views point into this resolver's databases and
  // subdivision table and stay valid while the resolver lives.
  // geo_prefix_length is the longest prefix length of the databases consulted
  // (a miss reports its empty network's length too), in the address's family;
  // -1 when none was. Returns false when a database lookup failed (counted as a
  // geo failure; `geo` then holds what could be read). Never throws, never
  // allocates.
  bool Lookup(const IpAddress& ip, GeoInfo& geo) const;

  const GeoDatabases& databases() const { return databases_; }
  const GeoFieldPaths& paths() const { return paths_; }

 private:
  // A field path as MMDB_aget_value wants it: null-terminated C strings
  // pointing into paths_.
  using CPath = std::vector<const char*>;
  static CPath ToCPath(const std::vector<std::string>& path);

  // Looks `ip` up in `dbs` in order until one has a record; raises
  // `prefix_length` to each consulted database's length. Returns the database
  // that answered (null if none) and its record; false in `ok` on an error.
  const MmdbFile* Consult(
      const std::vector<std::shared_ptr<const MmdbFile>>& dbs,
      const IpAddress& ip, MmdbRecord& record, int& prefix_length,
      bool& ok) const;

  GeoDatabases databases_;
  GeoFieldPaths paths_;
  CPath country_, subdivision_, latitude_, longitude_, asn_;
};

}  // namespace ax::dns
