// What the UDP and TCP edges need to answer a query besides its bytes: where
// the current serving state and geo resolver come from, the shared rate
// limiter, the responder settings and the per-worker accounting. Plain
// pointers: the owner (Service) outlives every server.
#pragma once

#include <memory>

#include "geo/geo_store.h"
#include "responder/responder.h"
#include "server/snapshot_store.h"

namespace ax::dns {

class Telemetry;  // server/telemetry.h

struct QueryContext {
  const SnapshotStore* store = nullptr;
  const GeoStore* geo = nullptr;  // null: no geo database configured
  RateLimiter* rrl = nullptr;     // null: rate limiting off
  ResponderOptions responder;
  Telemetry* telemetry = nullptr;  // gives every worker its QueryObserver
};

// One reference each, taken once per batch (UDP) or per read (TCP): a reload
// never changes the state under a query.
struct QueryRefs {
  std::shared_ptr<const ServingState> state;
  std::shared_ptr<const GeoResolver> geo;
  std::shared_ptr<const GeoRegionMap> geo_regions;  // the state's, if any

  static QueryRefs Take(const QueryContext& context) {
    QueryRefs refs{context.store->Current(),
                   context.geo ? context.geo->Current() : nullptr, nullptr};
    if (refs.state && refs.geo) refs.geo_regions = refs.state->geo_regions();
    return refs;
  }

  GeoRefs geo_refs() const { return {geo.get(), geo_regions.get()}; }
};

}  // namespace ax::dns
