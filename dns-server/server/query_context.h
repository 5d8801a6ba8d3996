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

// What one query is answered from: one reference each, so a reload never
// changes the state under a query.
struct QueryRefs {
  std::shared_ptr<const ServingState> state;
  std::shared_ptr<const GeoResolver> geo;
  std::shared_ptr<const GeoRegionMap> geo_regions;  // the state's, if any

  GeoRefs geo_refs() const { return {geo.get(), geo_regions.get()}; }
};

// A worker's QueryRefs, checked once per batch (UDP) or per read (TCP) and
// taken again only when the store served another state, the geo store loaded
// another resolver or the state attached another region map. Loading an
// std::atomic<std::shared_ptr> takes a lock bit and a count (three locked
// instructions in libstdc++, and as many to let go); three such loads per
// batch, at the rates where a batch is one or two datagrams, cost more than
// the rest of the batch's accounting. The check reads three counters instead,
// each before what it guards, so a change seen late is taken at the next
// check, never missed. A worker left idle calls Release: it must not keep a
// replaced state, or a replaced geo database, alive.
class WorkerRefs {
 public:
  explicit WorkerRefs(const QueryContext& context) : context_(context) {}

  const QueryRefs& Get() {
    const uint64_t loaded =
        context_.store->serves() + (context_.geo ? context_.geo->loads() : 0);
    if (!taken_ || loaded != loaded_) {
      refs_.state = context_.store->Current();
      refs_.geo = context_.geo ? context_.geo->Current() : nullptr;
      refs_.geo_regions = nullptr;
      attachments_ = kNotAttached;
      loaded_ = loaded;
      taken_ = true;
    }
    if (refs_.state && refs_.geo) {
      const uint64_t attachments = refs_.state->geo_attachments();
      if (attachments != attachments_) {
        refs_.geo_regions = refs_.state->geo_regions();
        attachments_ = attachments;
      }
    }
    return refs_;
  }

  void Release() {
    refs_ = {};
    taken_ = false;
  }

 private:
  static constexpr uint64_t kNotAttached = ~uint64_t{0};

  const QueryContext& context_;
  QueryRefs refs_;
  bool taken_ = false;
  uint64_t loaded_ = 0;
  uint64_t attachments_ = kNotAttached;
};

}  // namespace ax::dns
