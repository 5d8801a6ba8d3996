// GeoResolver: the compiled tables when present, else one lookup per database
// family with fields read in place; the location always from the databases;
// subdivisions mapped to ISO 3166-2.
#include "geo/geo_resolver.h"

#include <malloc.h>

#include <algorithm>
#include <atomic>

namespace ax::dns {
namespace {

bool Usable(const MmdbFile& db, const IpAddress& ip) {
  return ip.family == IpFamily::kV4 || db.ip_version() == 6;
}

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
  resolver->compiled_ =
      CompiledGeo::Compile(resolver->databases_, resolver->paths_, error);
  if (!resolver->compiled_) return nullptr;
  // The build's scratch (per-database range lists, decode caches: about
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
  // After paths_ has its final home: the C strings point into it.
  country_ = ToCFieldPath(paths_.country);
  subdivision_ = ToCFieldPath(paths_.subdivision);
  latitude_ = ToCFieldPath(paths_.latitude);
  longitude_ = ToCFieldPath(paths_.longitude);
  asn_ = ToCFieldPath(paths_.asn);
}

const MmdbFile* GeoResolver::Consult(
    const std::vector<std::shared_ptr<const MmdbFile>>& dbs,
    const IpAddress& ip, MmdbRecord& record, int& prefix_length,
    bool& ok) const {
  for (const std::shared_ptr<const MmdbFile>& db : dbs) {
    if (!Usable(*db, ip)) continue;
    if (!db->Lookup(ip, record)) {
      ok = false;
      continue;
    }
    prefix_length = std::max(prefix_length, record.prefix_length);
    if (record.found) return db.get();
  }
  return nullptr;
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
  MmdbRecord record;
  const MmdbFile* db =
      Consult(databases_.geo, ip, record, geo.geo_prefix_length, ok);
  if (db != nullptr) {
    Check(db->GetString(record, country_.data(), geo.country), ok);
    std::string_view subdivision;
    if (Check(db->GetString(record, subdivision_.data(), subdivision), ok)) {
      geo.subdivision =
          databases_.subdivisions->ToIso(geo.country, subdivision);
    }
  }
  if (!databases_.asn.empty()) {
    db = Consult(databases_.asn, ip, record, geo.geo_prefix_length, ok);
  }
  if (db != nullptr) Check(db->GetUint32(record, asn_.data(), geo.asn), ok);
  return ok;
}

bool GeoResolver::Locate(const IpAddress& ip, GeoInfo& geo) const {
  bool ok = true;
  MmdbRecord record;
  const MmdbFile* db =
      Consult(databases_.geo, ip, record, geo.geo_prefix_length, ok);
  if (db == nullptr) return ok;
  double lat = 0;
  double lon = 0;
  // Both or neither: half a coordinate is no location.
  const bool has_lat = Check(db->GetDouble(record, latitude_.data(), lat), ok);
  const bool has_lon = Check(db->GetDouble(record, longitude_.data(), lon), ok);
  if (has_lat && has_lon) {
    geo.has_location = true;
    geo.location = GeoPoint{lat, lon};
  }
  return ok;
}

}  // namespace ax::dns
