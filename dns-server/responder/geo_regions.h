// GeoRegionMap: one snapshot's geo step compiled over one resolver's tables —
// every distinct database value run through Classifier::MatchGeo once, the
// ranges re-merged by region. A query then needs one range lookup and no
// string hashing to classify, and its ECS scope is the widest block that maps
// to the same region (fewer cache entries in resolvers), as gdnsd does at
// config load. Built off the query path (ServingState::AttachGeo).
#pragma once

#include <cstdint>
#include <memory>

#include "ax/classify.h"
#include "geo/family_tables.h"

namespace ax::dns {

class GeoResolver;

class GeoRegionMap {
 public:
  // Null when `geo` was not compiled (GeoResolver::Mode::kDirect).
  static std::shared_ptr<const GeoRegionMap> Build(const Classifier& classifier,
                                                   const GeoResolver& geo);

  // The resolver this map was built from.
  uint64_t generation() const { return generation_; }
  size_t ranges() const { return tables_.v4.size() + tables_.v6.size(); }

  // The geo step of `client`'s classification, as Classifier::MatchGeo
  // decides it from a database lookup, and the region block it holds for.
  // False where the databases split an IPv6 /64 further: classify from a
  // GeoResolver lookup instead. The caller finishes with
  // Classifier::Classify(client, step.match, step.prefix_length). Written
  // field by field into the caller's `step`, which Classify reads by
  // reference: returned (an optional) or passed by value, the step was
  // copied whole right after its field-wise stores, each copy a stalled
  // store-to-load forward. Never allocates.
  struct GeoStep {
    Classifier::GeoMatch match;
    int prefix_length = 0;
  };
  bool Lookup(const IpAddress& client, GeoStep* step) const {
    const FamilyTables::Hit hit = tables_.Find(client);
    if (hit.value == FamilyTables::kDeeper) return false;
    step->prefix_length = hit.prefix_length;
    if (hit.value == kNoMatch) {
      step->match.region = kNoIndex;
      step->match.specificity = 0;
    } else {
      step->match.region = hit.value >> 8;
      step->match.specificity = static_cast<uint8_t>(hit.value & 0xff);
    }
    return true;
  }

  // Starts loading what Lookup(client) reads first, then (a while later,
  // when that has arrived) what it reads next.
  void Prefetch(const IpAddress& client) const { tables_.Prefetch(client); }
  void PrefetchRanges(const IpAddress& client) const {
    tables_.PrefetchRanges(client);
  }

 private:
  GeoRegionMap(FamilyTables tables, uint64_t generation)
      : tables_(std::move(tables)), generation_(generation) {}

  static uint32_t Pack(Classifier::GeoMatch match) {
    return match.region == kNoIndex ? kNoMatch
                                    : match.region << 8 | match.specificity;
  }

  static constexpr uint32_t kNoMatch = UINT32_MAX;
  FamilyTables tables_;
  uint64_t generation_;
};

}  // namespace ax::dns
