// GeoSource over an ip2region v1 file (IPv4 only): country and province by
// their Chinese names (zh_names.h), the city and the carrier as the file
// writes them.
#include "geo/file_source.h"
#include "geo/ip2region_file.h"
#include "geo/zh_names.h"

namespace ax::dns {
namespace {

class Ip2RegionSource final
    : public FileSource<Ip2RegionSource, Ip2RegionFile, Ip2RegionRecord> {
 public:
  Ip2RegionSource(std::shared_ptr<const Ip2RegionFile> file,
                  const SubdivisionTable& subdivisions)
      : FileSource(std::move(file)), subdivisions_(subdivisions) {}

  GeoSourceKind kind() const override { return GeoSourceKind::kIp2Region; }
  bool Serves(IpFamily family) const override {
    return family == IpFamily::kV4;
  }

  bool Walk(IpFamily family, const Visit& visit,
            std::string* error) const override {
    if (!Serves(family)) return true;
    return WalkWith(visit, error, [&](const auto& report) {
      return file().ForEachRange(
          [&](const Ip2RegionRange& r) {
            GeoSourceRange range{.key = r.first};
            if (r.record.found) {
              range.state = GeoSourceRange::State::kRecord;
              range.record = r.record.offset;
            }
            return report(range, r.record);
          },
          error);
    });
  }

  // ForEachRange and Lookup resolved the record already: always true.
  bool Read(const Ip2RegionRecord& record, GeoFacts& facts) const {
    const IsoPlace place = ZhPlaceToIso(
        Ip2RegionFile::Field(record, Ip2RegionField::kCountry),
        Ip2RegionFile::Field(record, Ip2RegionField::kProvince), subdivisions_);
    facts.country = place.country;
    facts.subdivision = place.subdivision;
    facts.city =
        ZhCityName(Ip2RegionFile::Field(record, Ip2RegionField::kCity));
    facts.isp = Ip2RegionFile::Field(record, Ip2RegionField::kIsp);
    return true;
  }

 private:
  const SubdivisionTable& subdivisions_;
};

}  // namespace

std::unique_ptr<const GeoSource> MakeIp2RegionSource(
    std::shared_ptr<const Ip2RegionFile> file,
    const SubdivisionTable& subdivisions) {
  return std::make_unique<Ip2RegionSource>(std::move(file), subdivisions);
}

}  // namespace ax::dns
