// The two ways the geo tests classify a client, to compare them: the compiled
// region map's (GeoRegionMap::Lookup, finished by Classifier::Classify with its
// step, as the responder does) and the slow path it replaces (a GeoResolver
// lookup, then Classifier::Classify). Test support only.
#pragma once

#include <gtest/gtest.h>

#include <optional>

#include "ax/ip.h"
#include "geo/geo_resolver.h"
#include "responder/geo_regions.h"

namespace ax::dns::testing {

// std::nullopt where the map declines (the caller must look up).
inline std::optional<Classification> MapClassify(const GeoRegionMap& map,
                                                 const Classifier& classifier,
                                                 const IpAddress& ip) {
  GeoRegionMap::GeoStep step;
  if (!map.Lookup(ip, &step)) return std::nullopt;
  return classifier.Classify(ip, step.match, step.prefix_length);
}

inline Classification SlowClassify(const Classifier& classifier,
                                   const GeoResolver& geo,
                                   const IpAddress& ip) {
  GeoInfo info;
  EXPECT_TRUE(geo.Lookup(ip, info, GeoResolver::Detail::kClassify))
      << "a database read failed";
  return classifier.Classify(ip, info);
}

}  // namespace ax::dns::testing
