// The per-query pick (the data plane's hot path): given a snapshot route for
// the client's region, choose up to maxAnswers nodes by the domain's strategy,
// split the canary by stable client cohort, and choose the TTL. No allocation,
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

enum class TtlReason : uint8_t { kSteady, kFailover, kCanary, kFallback };
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
  uint32_t ttl = 0;
  TtlReason ttl_reason = TtlReason::kSteady;
};

// Filled only when explaining: the per-query inputs of the pick.
struct DecisionTrace {
  bool canary_considered = false;
  uint64_t canary_bucket =
      0;  // 0..kCohortBuckets-1; in the canary when < percent*100
  double canary_percent = 0;
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

// Great-circle distance in km (haversine on a spherical Earth of radius 6371
// km).
double DistanceKm(const GeoPoint& a, const GeoPoint& b);

}  // namespace ax
