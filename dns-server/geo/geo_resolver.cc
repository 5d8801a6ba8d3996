// GeoResolver: the compiled tables when present, else one lookup per source
// merged by precedence; the location always from the location databases.
#include "geo/geo_resolver.h"

#include <malloc.h>

#include <algorithm>
#include <atomic>

namespace ax::dns {
namespace {

uint64_t NextGeneration() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

bool Check(MmdbField field, bool& ok) {
  if (field == MmdbField::kCorrupt) ok = false;
  return field == MmdbField::kFound;
}

}  // namespace

std::shared_ptr<const GeoResolver> GeoResolver::Create(GeoDatabases databases,
                                                       GeoFieldPaths paths,
                                                       Mode mode,
                                                       std::string* error) {
  std::shared_ptr<GeoResolver> resolver(
      new GeoResolver(std::move(databases), std::move(paths)));
  if (mode == Mode::kDirect) return resolver;
  resolver->compiled_ = CompiledGeo::Compile(resolver->sources_, error);
  if (!resolver->compiled_) return nullptr;
  // The build's scratch (per-source range lists, decode caches: about
  // 250 MB at the peak with dbip) is freed by now, but glibc keeps freed heap
  // pages resident: hand them back so memory is the tables, not the peak.
  ::malloc_trim(0);
  return resolver;
}

GeoResolver::GeoResolver(GeoDatabases databases, GeoFieldPaths paths)
    : databases_(std::move(databases)),
      paths_(std::move(paths)),
      generation_(NextGeneration()) {
  if (!databases_.subdivisions) {
    databases_.subdivisions = SubdivisionTable::Builtin();
  }
  // After paths_ and databases_ have their final home: the sources and the
  // C strings point into them.
  latitude_ = ToCFieldPath(paths_.latitude);
  longitude_ = ToCFieldPath(paths_.longitude);
  const SubdivisionTable& subdivisions = *databases_.subdivisions;
  std::vector<std::unique_ptr<const GeoSource>> sources;
  for (const auto& file : databases_.geo) {
    sources.push_back(
        MakeMmdbSource(file, GeoSourceKind::kMmdb, paths_, subdivisions));
  }
  for (const auto& file : databases_.asn) {
    sources.push_back(
        MakeMmdbSource(file, GeoSourceKind::kAsn, paths_, subdivisions));
  }
  for (const auto& file : databases_.ipdb) {
    sources.push_back(MakeIpdbSource(file, subdivisions));
  }
  for (const auto& file : databases_.ip2region) {
    sources.push_back(MakeIp2RegionSource(file, subdivisions));
  }
  sources_ =
      RankSources(std::move(sources), databases_.precedence, databases_.cities);
}

bool GeoResolver::Lookup(const IpAddress& ip, GeoInfo& geo,
                         Detail detail) const {
  geo = GeoInfo{};
  bool ok = true;
  if (!compiled_ || !compiled_->Find(ip, geo)) ok = ReadDatabases(ip, geo);
  if (detail == Detail::kLocation && !Locate(ip, geo)) ok = false;
  return ok;
}

bool GeoResolver::ReadDatabases(const IpAddress& ip, GeoInfo& geo) const {
  bool ok = true;
  RankedFacts merged;
  for (size_t s = 0; s < sources_.sources.size(); ++s) {
    const GeoSource& source = *sources_.sources[s];
    // A source ranked below every group's holder cannot change the answer:
    // not consulting it keeps the scope as wide as what was read.
    if (!source.Serves(ip.family) || !merged.CouldTake(sources_.ranks[s])) {
      continue;
    }
    GeoFacts facts;
    bool found = false;
    if (!source.Lookup(ip, facts, found, geo.geo_prefix_length)) {
      ok = false;
    } else if (found) {
      sources_.MergeInto(merged, s, facts);
    }
  }
  geo.country = merged.facts.country;
  geo.subdivision = merged.facts.subdivision;
  geo.city = merged.facts.city;
  geo.asn = merged.facts.asn;
  geo.isp = merged.facts.isp;
  return ok;
}

bool GeoResolver::Locate(const IpAddress& ip, GeoInfo& geo) const {
  bool ok = true;
  for (const std::shared_ptr<const MmdbFile>& db : databases_.geo) {
    if (ip.family == IpFamily::kV6 && db->ip_version() != 6) continue;
    MmdbRecord record;
    if (!db->Lookup(ip, record)) {
      ok = false;
      continue;
    }
    // Answers that depend on the location hold only within its network.
    geo.geo_prefix_length =
        std::max(geo.geo_prefix_length, record.prefix_length);
    if (!record.found) continue;
    double lat = 0;
    double lon = 0;
    // Both or neither: half a coordinate is no location.
    const bool has_lat =
        Check(db->GetDouble(record, latitude_.data(), lat), ok);
    const bool has_lon =
        Check(db->GetDouble(record, longitude_.data(), lon), ok);
    if (has_lat && has_lon) {
      geo.has_location = true;
      geo.location = GeoPoint{lat, lon};
    }
    return ok;
  }
  return ok;
}

}  // namespace ax::dns
