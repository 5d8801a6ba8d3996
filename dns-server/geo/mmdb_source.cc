// GeoSource over an MMDB file: a location database (country, subdivision,
// city, and the ASN or ISP when its records carry them) or an ASN database
// (the ASN only), fields found by the configured paths.
#include "geo/file_source.h"
#include "geo/mmdb_file.h"

namespace ax::dns {
namespace {

// dbip writes some cities with their district: "Guangzhou (Yuexiu Qu)" is
// Guangzhou to a Region.
std::string_view WithoutDistrict(std::string_view city) {
  const size_t open = city.rfind(" (");
  return city.ends_with(')') && open != std::string_view::npos && open > 0
             ? city.substr(0, open)
             : city;
}

class MmdbSource final : public FileSource<MmdbSource, MmdbFile, MmdbRecord> {
 public:
  MmdbSource(std::shared_ptr<const MmdbFile> file, GeoSourceKind kind,
             const GeoFieldPaths& paths, const SubdivisionTable& subdivisions)
      : FileSource(std::move(file)),
        kind_(kind),
        subdivisions_(subdivisions),
        asn_(ToCFieldPath(paths.asn)) {
    if (kind_ == GeoSourceKind::kMmdb) {
      country_ = ToCFieldPath(paths.country);
      subdivision_ = ToCFieldPath(paths.subdivision);
      city_ = ToCFieldPath(paths.city);
      isp_ = ToCFieldPath(paths.isp);
    }
  }

  GeoSourceKind kind() const override { return kind_; }
  bool Serves(IpFamily family) const override {
    return family == IpFamily::kV4 || file().ip_version() == 6;
  }

  bool Walk(IpFamily family, const Visit& visit,
            std::string* error) const override {
    return WalkWith(visit, error, [&](const auto& report) {
      return file().ForEachNetwork(
          family,
          [&](const MmdbNetwork& n) {
            return report(NetworkRange(n, n.record.entry.offset), n.record);
          },
          error);
    });
  }

  // False on a corrupt data section; a path the record lacks (or holds with
  // another type) leaves its field empty.
  bool Read(const MmdbRecord& record, GeoFacts& facts) const {
    bool ok = true;
    auto text = [&](const CFieldPath& path, std::string_view& out) {
      if (path.size() > 1 &&
          file().GetString(record, path.data(), out) == MmdbField::kCorrupt) {
        ok = false;
      }
    };
    std::string_view subdivision;
    text(country_, facts.country);
    text(subdivision_, subdivision);
    text(city_, facts.city);
    facts.city = WithoutDistrict(facts.city);
    text(isp_, facts.isp);
    if (!subdivision.empty()) {
      facts.subdivision = subdivisions_.ToIso(facts.country, subdivision);
    }
    if (asn_.size() > 1 && file().GetUint32(record, asn_.data(), facts.asn) ==
                               MmdbField::kCorrupt) {
      ok = false;
    }
    return ok;
  }

 private:
  GeoSourceKind kind_;
  const SubdivisionTable& subdivisions_;
  // Unused fields of the kind stay empty: {} is never read.
  CFieldPath country_, subdivision_, city_, isp_, asn_;
};

}  // namespace

std::unique_ptr<const GeoSource> MakeMmdbSource(
    std::shared_ptr<const MmdbFile> file, GeoSourceKind kind,
    const GeoFieldPaths& paths, const SubdivisionTable& subdivisions) {
  return std::make_unique<MmdbSource>(std::move(file), kind, paths,
                                      subdivisions);
}

}  // namespace ax::dns
