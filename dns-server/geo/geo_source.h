// GeoSource: one open geo file (MMDB location or ASN, IPIP.net ipdb,
// ip2region) seen through one interface — what it says about an address
// (GeoFacts), looked up or walked range by range — so that the resolver and
// the compiler combine any set of them by field precedence
// (geo_precedence.h) without knowing their formats. Each adapter maps its
// file's values to the codes Regions match on (ISO 3166-1/3166-2; Chinese
// names through zh_names.h). The file formats themselves live in
// mmdb_file.h, ipdb_file.h and ip2region_file.h.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "ax/ip.h"
#include "geo/geo_fields.h"
#include "geo/subdivision_table.h"

namespace ax::dns {

class MmdbFile;
class IpdbFile;
class Ip2RegionFile;

// The kinds of source, as flags and precedence name them.
enum class GeoSourceKind : uint8_t {
  kMmdb,       // --geo-db: a location MMDB (country, subdivision, city, ...)
  kAsn,        // --asn-db: an ASN MMDB
  kIpdb,       // --ipdb: an IPIP.net ipdb file
  kIp2Region,  // --ip2region: an ip2region v1 .db file
};
inline constexpr int kGeoSourceKinds = 4;

// What one source says about an address. Empty / 0: the source does not say.
// Views point into the source's file or static tables.
struct GeoFacts {
  std::string_view country;      // ISO 3166-1 alpha-2
  std::string_view subdivision;  // ISO 3166-2
  std::string_view city;         // as the source names it
  uint32_t asn = 0;
  std::string_view isp;  // as the source names it ("电信")
};

// One range of a walk. Ranges with the same `record` decode alike.
struct GeoSourceRange {
  uint64_t key = 0;  // first address (IPv6: its upper 64 bits)
  enum class State : uint8_t { kNone, kRecord, kDeeper } state = State::kNone;
  uint64_t record = 0;  // kRecord: identifies the record within the source
};

class GeoSource {
 public:
  // Decodes the record of the range being visited.
  using Decode = std::function<bool(GeoFacts&)>;
  // Called per range in address order; `decode` is valid during the call.
  using Visit = std::function<bool(const GeoSourceRange&, const Decode&)>;

  virtual ~GeoSource() = default;

  virtual GeoSourceKind kind() const = 0;
  virtual const std::string& path() const = 0;
  virtual bool Serves(IpFamily family) const = 0;

  // What the source says about `ip` (`facts` untouched when it holds no
  // record: `found` false). Raises `prefix_length` to the length of the
  // network (or the widest aligned block of the range) holding `ip`. False
  // when the file is corrupt there. Never allocates.
  virtual bool Lookup(const IpAddress& ip, GeoFacts& facts, bool& found,
                      int& prefix_length) const = 0;

  // Visits ranges partitioning `family`'s key space (kDeeper: an IPv6 /64
  // the file splits further, to be looked up at query time), then drops the
  // file's pages from this process. False with `error` naming the file.
  virtual bool Walk(IpFamily family, const Visit& visit,
                    std::string* error) const = 0;
};

// `paths` selects the fields of a location or ASN MMDB; `subdivisions` maps
// them to ISO 3166-2 (both must outlive the source).
std::unique_ptr<const GeoSource> MakeMmdbSource(
    std::shared_ptr<const MmdbFile> file, GeoSourceKind kind,
    const GeoFieldPaths& paths, const SubdivisionTable& subdivisions);
std::unique_ptr<const GeoSource> MakeIpdbSource(
    std::shared_ptr<const IpdbFile> file, const SubdivisionTable& subdivisions);
std::unique_ptr<const GeoSource> MakeIp2RegionSource(
    std::shared_ptr<const Ip2RegionFile> file,
    const SubdivisionTable& subdivisions);

}  // namespace ax::dns
