// GeoRegionMap: projection of the compiled geo tables through MatchGeo.
#include "responder/geo_regions.h"

#include "geo/geo_resolver.h"

namespace ax::dns {

std::shared_ptr<const GeoRegionMap> GeoRegionMap::Build(
    const Classifier& classifier, const GeoResolver& geo) {
  const CompiledGeo* compiled = geo.compiled();
  if (compiled == nullptr) return nullptr;
  FamilyTables tables =
      compiled->tables().Project(compiled->value_count(), [&](uint32_t value) {
        GeoInfo info;
        compiled->FillValue(value, info);
        return Pack(classifier.MatchGeo(info));
      });
  return std::shared_ptr<const GeoRegionMap>(
      new GeoRegionMap(std::move(tables), geo.generation()));
}

}  // namespace ax::dns
