// FuzzState, FuzzGeo, FuzzRrl: function-local statics over the test world
// (responder_world.h) and the geo test MMDBs (AX_GEO_TEST_MMDB_DIR).
#include "fuzz_world.h"

#include <cstdlib>
#include <memory>
#include <string>

#include "geo/mmdb_file.h"
#include "responder_world.h"

namespace ax::fuzz {
namespace {

std::shared_ptr<const dns::MmdbFile> Open(const char* name) {
  std::string error;
  auto file = dns::MmdbFile::Open(
      std::string(AX_GEO_TEST_MMDB_DIR) + "/" + name, &error);
  if (!file) std::abort();
  return file;
}

}  // namespace

const dns::GeoResolver& FuzzGeo() {
  static const std::shared_ptr<const dns::GeoResolver> geo = [] {
    std::string error;
    auto resolver = dns::GeoResolver::Create(
        dns::GeoDatabases{.geo = {Open("geoip2-city.mmdb")},
                          .asn = {Open("asn.mmdb")}},
        dns::GeoFieldPaths{}, dns::GeoResolver::Mode::kCompiled, &error);
    if (!resolver) std::abort();
    return resolver;
  }();
  return *geo;
}

const dns::ServingState& FuzzState() {
  static const std::shared_ptr<const dns::ServingState> state = [] {
    std::string error;
    auto s = dns::ServingState::Make(
        std::make_shared<Snapshot>(dns::testing::ResponderWorld().Build()), {},
        &error);
    if (!s) std::abort();  // the fixed world is valid
    s->AttachGeo(FuzzGeo(), nullptr);
    return s;
  }();
  return *state;
}

dns::RateLimiter& FuzzRrl() {
  // Low rates, so that fuzzing reaches limited and slipped responses.
  static dns::RateLimiter rrl({.responses_per_second = 5,
                               .nxdomains_per_second = 5,
                               .errors_per_second = 5,
                               .burst = 3,
                               .slip = 2,
                               .table_size = 1024});
  return rrl;
}

}  // namespace ax::fuzz
