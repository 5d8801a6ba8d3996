// The per-query pick (the data plane's hot path): given a snapshot route for
// the client's region, choose up to maxAnswers nodes by the domain's strategy,
// split the canary, spill-over and slow-start ramps by stable client cohort,
// and choose the TTL. No allocation,
// no exceptions; the RNG and the clock are arguments. An optional trace records
// why, for explain.
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "ax/ip.h"
#include "ax/rng.h"
#include "ax/snapshot.h"

namespace ax {

inline constexpr uint32_t kMaxAnswers = 16;
// Canary shares are resolved to 1/100 of a percent.
inline constexpr uint64_t kCohortBuckets = 10000;

enum class TtlReason : uint8_t {
  kSteady,
  kFailover,
  kCanary,
  kFallback,
  kSpill,  // the region spills over: both sides re-ask as soon as on failover
};
const char* TtlReasonName(TtlReason r);

// Who is asking, reduced to what the pick needs.
struct ClientContext {
  uint64_t cohort = 0;  // ClientCohort(subnet): stable per client subnet
  bool has_location = false;
  GeoPoint location;
};

// The client subnet a cohort is keyed on: /24 for IPv4, /56 for IPv6 (the ECS
// caps of RFC 7871 §11.1 recommendations), so one household or resolver stays
// in or out together.
uint64_t ClientCohort(const IpAddress& client);
inline int CohortPrefixLength(IpFamily family) {
  return family == IpFamily::kV4 ? 24 : 56;
}

struct Answer {
  RouteSource source = RouteSource::kRegion;
  uint32_t route = kNoIndex;
  std::array<uint32_t, kMaxAnswers>
      nodes{};  // indices into Snapshot::nodes, best first
  uint32_t count = 0;
  bool canary =
      false;  // the canary node leads this answer (client in the cohort)
  // The client's region spills over and the client is in the spilled share:
  // `route` is the region route's spill route.
  bool spilled = false;
  uint32_t ttl = 0;
  TtlReason ttl_reason = TtlReason::kSteady;
};

// Filled only when explaining: the per-query inputs of the pick.
struct DecisionTrace {
  bool canary_considered = false;
  uint64_t canary_bucket =
      0;  // 0..kCohortBuckets-1; in the canary when < percent*100
  double canary_percent = 0;
  bool spill_considered = false;
  uint64_t spill_bucket = 0;  // spilled when < spillShare * kCohortBuckets
  // Ramping candidates slow start kept out of this answer (node indices).
  std::array<uint32_t, kMaxAnswers> held_back{};
  uint32_t held_back_count = 0;
  // Strategy key per candidate, in route order (distance km, rendezvous key,
  // draw).
  std::array<double, kMaxAnswers> keys{};
  uint32_t keys_count = 0;
};

// `region` is an index into snapshot.regions, or kNoIndex for an unclassified
// client. `family`: only nodes with an address of that family count (A vs
// AAAA); nullopt: any.
Answer Decide(const Snapshot& snapshot, const SnapshotDomain& domain,
              uint32_t region, const ClientContext& client,
              std::optional<IpFamily> family, int64_t now_ms, Rng& rng,
              DecisionTrace* trace = nullptr);
// The same pick of up to `limit` nodes (at most kMaxAnswers) instead of the
// domain's maxAnswers: an SRV answer lists every node a share strategy
// spreads clients over (srv.h).
Answer DecideUpTo(uint32_t limit, const Snapshot& snapshot,
                  const SnapshotDomain& domain, uint32_t region,
                  const ClientContext& client, std::optional<IpFamily> family,
                  int64_t now_ms, Rng& rng, DecisionTrace* trace = nullptr);

// Slow start: the share (0..1] of client subnets a candidate is answered to
// at `now_ms` under a domain window of `slow_start_ms`; 1 when not ramping.
// The share grows linearly from the moment the node turned Up.
double RampShare(const Candidate& candidate, int64_t slow_start_ms,
                 int64_t now_ms);

// Great-circle distance in km (haversine on a spherical Earth of radius 6371
// km).
double DistanceKm(const GeoPoint& a, const GeoPoint& b);

}  // namespace ax
