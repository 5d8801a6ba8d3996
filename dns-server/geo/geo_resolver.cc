// GeoResolver: one lookup per database family, fields read in place, the
// subdivision mapped to ISO 3166-2.
#include "geo/geo_resolver.h"

#include <algorithm>

namespace ax::dns {
namespace {

bool Usable(const MmdbFile& db, const IpAddress& ip) {
  return ip.family == IpFamily::kV4 || db.ip_version() == 6;
}

}  // namespace

GeoResolver::GeoResolver(GeoDatabases databases, GeoFieldPaths paths)
    : databases_(std::move(databases)), paths_(std::move(paths)) {
  if (!databases_.subdivisions) {
    databases_.subdivisions = SubdivisionTable::Builtin();
  }
  // After paths_ has its final home: the C strings point into it.
  country_ = ToCPath(paths_.country);
  subdivision_ = ToCPath(paths_.subdivision);
  latitude_ = ToCPath(paths_.latitude);
  longitude_ = ToCPath(paths_.longitude);
  asn_ = ToCPath(paths_.asn);
}

GeoResolver::CPath GeoResolver::ToCPath(const std::vector<std::string>& path) {
  CPath c_path;
  c_path.reserve(path.size() + 1);
  for (const std::string& key : path) c_path.push_back(key.c_str());
  c_path.push_back(nullptr);
  return c_path;
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

bool GeoResolver::Lookup(const IpAddress& ip, GeoInfo& geo) const {
  geo = GeoInfo{};
  bool ok = true;
  auto check = [&ok](MmdbField field) {
    if (field == MmdbField::kCorrupt) ok = false;
    return field == MmdbField::kFound;
  };

  MmdbRecord record;
  const MmdbFile* db =
      Consult(databases_.geo, ip, record, geo.geo_prefix_length, ok);
  if (db != nullptr) {
    check(db->GetString(record, country_.data(), geo.country));
    std::string_view subdivision;
    if (check(db->GetString(record, subdivision_.data(), subdivision))) {
      geo.subdivision =
          databases_.subdivisions->ToIso(geo.country, subdivision);
    }
    double lat = 0;
    double lon = 0;
    // Both or neither: half a coordinate is no location.
    bool has_lat = check(db->GetDouble(record, latitude_.data(), lat));
    bool has_lon = check(db->GetDouble(record, longitude_.data(), lon));
    if (has_lat && has_lon) {
      geo.has_location = true;
      geo.location = GeoPoint{lat, lon};
    }
  }

  if (!databases_.asn.empty()) {
    db = Consult(databases_.asn, ip, record, geo.geo_prefix_length, ok);
  }
  if (db != nullptr) check(db->GetUint32(record, asn_.data(), geo.asn));
  return ok;
}

}  // namespace ax::dns
