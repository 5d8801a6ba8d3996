// GeoSource over an IPIP.net ipdb file: country and province by their
// Chinese names (zh_names.h), the file's own country_code where the names
// say nothing, the city and the carrier (isp_domain) as the file writes them.
#include "geo/file_source.h"
#include "geo/ipdb_file.h"
#include "geo/zh_names.h"

namespace ax::dns {
namespace {

bool IsCountryCode(std::string_view code) {
  return code.size() == 2 && code[0] >= 'A' && code[0] <= 'Z' &&
         code[1] >= 'A' && code[1] <= 'Z';
}

class IpdbSource final : public FileSource<IpdbSource, IpdbFile, IpdbRecord> {
 public:
  IpdbSource(std::shared_ptr<const IpdbFile> file,
             const SubdivisionTable& subdivisions)
      : FileSource(std::move(file)),
        subdivisions_(subdivisions),
        country_name_(this->file().FieldIndex("country_name")),
        region_name_(this->file().FieldIndex("region_name")),
        city_name_(this->file().FieldIndex("city_name")),
        isp_domain_(this->file().FieldIndex("isp_domain")),
        country_code_(this->file().FieldIndex("country_code")) {}

  GeoSourceKind kind() const override { return GeoSourceKind::kIpdb; }
  bool Serves(IpFamily family) const override { return file().Serves(family); }

  bool Walk(IpFamily family, const Visit& visit,
            std::string* error) const override {
    return WalkWith(visit, error, [&](const auto& report) {
      return file().ForEachNetwork(
          family,
          [&](const IpdbNetwork& n) {
            return report(NetworkRange(n, n.record.offset), n.record);
          },
          error);
    });
  }

  // Records were validated on open and are plain text: always true.
  bool Read(const IpdbRecord& record, GeoFacts& facts) const {
    const IsoPlace place =
        ZhPlaceToIso(IpdbFile::Field(record, country_name_),
                     IpdbFile::Field(record, region_name_), subdivisions_);
    facts.country = place.country;
    facts.subdivision = place.subdivision;
    if (facts.country.empty()) {
      const std::string_view code = IpdbFile::Field(record, country_code_);
      if (IsCountryCode(code)) facts.country = code;
    }
    facts.city = ZhCityName(IpdbFile::Field(record, city_name_));
    facts.isp = IpdbFile::Field(record, isp_domain_);
    return true;
  }

 private:
  const SubdivisionTable& subdivisions_;
  // -1 when the file lacks the field: Field then reads "".
  const int country_name_, region_name_, city_name_, isp_domain_, country_code_;
};

}  // namespace

std::unique_ptr<const GeoSource> MakeIpdbSource(
    std::shared_ptr<const IpdbFile> file,
    const SubdivisionTable& subdivisions) {
  return std::make_unique<IpdbSource>(std::move(file), subdivisions);
}

}  // namespace ax::dns
