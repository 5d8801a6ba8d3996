// Decide: the query-time half of the strategies. Ranked strategies were ordered
// by the builder; weighted random draws, consistent hashing and geo-closest
// need the query.
#include "ax/decide.h"

#include <algorithm>
#include <cmath>

#include "ax/enum_names.h"
#include "ax/hash.h"

namespace ax {
namespace {

constexpr NameTable<TtlReason, 5> kTtlReasons{{
    {TtlReason::kSteady, "steady"},
    {TtlReason::kFailover, "failover"},
    {TtlReason::kCanary, "canary"},
    {TtlReason::kFallback, "fallback"},
    {TtlReason::kSpill, "spill"},
}};

// Salts that keep the cohort draws of slow start and spill-over independent
// of each other and of the canary's and rendezvous hashing's.
constexpr uint64_t kRampSalt = 0x72616d70'73747274;   // "rampstrt"
constexpr uint64_t kSpillSalt = 0x7370696c'6c6f7672;  // "spillovr"

bool HasFamily(const SnapshotNode& node, std::optional<IpFamily> family) {
  if (!family) return !node.addresses.empty();
  for (const IpAddress& a : node.addresses) {
    if (a.family == *family) return true;
  }
  return false;
}

bool AlreadyPicked(const Answer& answer, uint32_t node) {
  for (uint32_t i = 0; i < answer.count; ++i) {
    if (answer.nodes[i] == node) return true;
  }
  return false;
}

// Uniform in (0, 1), never 0 so that its log is finite.
double UnitInterval(uint64_t h) {
  return (static_cast<double>(h >> 11) + 0.5) * 0x1.0p-53;
}

// A stable bucket in 0..kCohortBuckets-1 per (client subnet, salt): raising a
// share only adds subnets, nobody already in leaves.
uint64_t CohortBucket(uint64_t cohort, uint64_t salt) {
  return Mix64(cohort ^ salt) % kCohortBuckets;
}

bool InPercent(uint64_t bucket, double percent) {
  return static_cast<double>(bucket) < percent * (kCohortBuckets / 100.0);
}

// What one query may be answered with: candidates with an address of the
// family asked, not picked yet, and not held back by slow start. A ramping
// node is answered to the growing share of client subnets its ramp admits;
// the rest are answered as if it were not there, as long as some candidate
// that is not ramping can take them (all ramping: nobody is held back).
class Offer {
 public:
  Offer(const Snapshot& s, const SnapshotDomain& d, const Route& route,
        const ClientContext& client, std::optional<IpFamily> family,
        int64_t now_ms)
      : s_(s), family_(family), cohort_(client.cohort), now_ms_(now_ms) {
    if (d.slow_start_ms <= 0) return;
    bool ramping = false, steady = false;
    for (const Candidate& c : route.candidates) {
      if (!HasFamily(s.nodes[c.node], family)) continue;
      (RampShare(c, d.slow_start_ms, now_ms) < 1 ? ramping : steady) = true;
    }
    if (ramping && steady) slow_start_ms_ = d.slow_start_ms;
  }

  const Snapshot& snapshot() const { return s_; }
  std::optional<IpFamily> family() const { return family_; }

  bool HeldBack(const Candidate& c) const {
    if (slow_start_ms_ == 0) return false;
    const double share = RampShare(c, slow_start_ms_, now_ms_);
    return share < 1 &&
           !InPercent(CohortBucket(cohort_, Mix64(s_.nodes[c.node].name_hash ^
                                                  kRampSalt)),
                      share * 100);
  }

  bool Open(const Candidate& c, const Answer& answer) const {
    return HasFamily(s_.nodes[c.node], family_) &&
           !AlreadyPicked(answer, c.node) && !HeldBack(c);
  }

 private:
  const Snapshot& s_;
  std::optional<IpFamily> family_;
  uint64_t cohort_;
  int64_t now_ms_;
  int64_t slow_start_ms_ = 0;  // 0: nobody is held back in this answer
};

// Candidates in route order, first fit.
void PickInOrder(const Offer& offer, const Route& route, uint32_t limit,
                 Answer& answer) {
  for (const Candidate& c : route.candidates) {
    if (answer.count >= limit) return;
    if (offer.Open(c, answer)) answer.nodes[answer.count++] = c.node;
  }
}

// Weighted sampling without replacement: the first answer follows the weights
// exactly (5:3:2 -> 50%/30%/20% of answers lead with each), later ones among
// the rest.
void PickWeighted(const Offer& offer, const Route& route, uint32_t limit,
                  Rng& rng, Answer& answer) {
  while (answer.count < limit) {
    double total = 0;
    for (const Candidate& c : route.candidates) {
      if (c.weight > 0 && offer.Open(c, answer)) total += c.weight;
    }
    if (total <= 0) break;
    double draw = rng.Uniform() * total;
    uint32_t chosen = kNoIndex;
    for (const Candidate& c : route.candidates) {
      if (c.weight <= 0 || !offer.Open(c, answer)) continue;
      chosen = c.node;
      draw -= c.weight;
      if (draw < 0) break;
    }
    answer.nodes[answer.count++] = chosen;
  }
  PickInOrder(offer, route, limit,
              answer);  // zero-weight nodes only if room is left
}

// Keeps the `limit` candidates with the highest key (ties: route order), best
// first.
template <typename KeyFn>
void PickTopKeys(const Offer& offer, const Route& route, uint32_t limit,
                 KeyFn key_of, DecisionTrace* trace, Answer& answer) {
  std::array<double, kMaxAnswers> best{};
  const uint32_t start = answer.count;
  for (size_t i = 0; i < route.candidates.size(); ++i) {
    const Candidate& c = route.candidates[i];
    const double key = key_of(c);
    if (trace && i < kMaxAnswers) trace->keys[trace->keys_count++] = key;
    if (!offer.Open(c, answer)) continue;
    uint32_t pos = answer.count;
    while (pos > start && best[pos - 1] < key) --pos;
    if (pos >= limit) continue;
    const uint32_t last = std::min(answer.count, limit - 1);
    for (uint32_t j = last; j > pos; --j) {
      answer.nodes[j] = answer.nodes[j - 1];
      best[j] = best[j - 1];
    }
    answer.nodes[pos] = c.node;
    best[pos] = key;
    answer.count = std::min(answer.count + 1, limit);
  }
}

void PickByStrategy(const Offer& offer, const SnapshotDomain& d,
                    const Route& route, const ClientContext& client,
                    uint32_t limit, Rng& rng, DecisionTrace* trace,
                    Answer& answer) {
  const Snapshot& s = offer.snapshot();
  switch (d.strategy) {
    case Strategy::kWeightedRandom:
      PickWeighted(offer, route, limit, rng, answer);
      return;
    case Strategy::kConsistentHash:
      // Weighted rendezvous hashing: each (subnet, node) pair draws a key; the
      // highest keys win. Adding a node only takes the clients for which it now
      // wins (~1/N).
      PickTopKeys(
          offer, route, limit,
          [&](const Candidate& c) {
            const double u =
                UnitInterval(Mix64(client.cohort ^ s.nodes[c.node].name_hash));
            return c.weight > 0 ? c.weight / -std::log(u) : 0.0;
          },
          trace, answer);
      return;
    case Strategy::kGeoClosest:
      if (client.has_location) {
        PickTopKeys(
            offer, route, limit,
            [&](const Candidate& c) {
              const SnapshotNode& n = s.nodes[c.node];
              if (!n.has_location) return -1e9;  // unknown position: last
              // Penalised nodes count as farther away: distance / (health x
              // load).
              return -DistanceKm(client.location, n.location) /
                     (c.score.health * c.score.load);
            },
            trace, answer);
        return;
      }
      break;  // no client position: the builder's order
    default:
      break;
  }
  PickInOrder(offer, route, limit, answer);
}

// Spill-over: a stable share of the region's client subnets is answered from
// the region route's spill route while the region is past its load knee.
const Route& SpillIfDrawn(const Snapshot& s, const ClientContext& client,
                          DecisionTrace* trace, Answer& answer) {
  const Route& route = s.routes[answer.route];
  if (route.spill_route == kNoIndex) return route;
  const uint64_t bucket = CohortBucket(client.cohort, kSpillSalt);
  if (trace) {
    trace->spill_considered = true;
    trace->spill_bucket = bucket;
  }
  if (!InPercent(bucket, route.spill_share * 100)) return route;
  answer.spilled = true;
  answer.route = route.spill_route;
  return s.routes[answer.route];
}

// Which ramping candidates this client is kept from, for explain.
void TraceHeldBack(const Offer& offer, const Route& route,
                   DecisionTrace& trace) {
  for (const Candidate& c : route.candidates) {
    if (trace.held_back_count < kMaxAnswers && offer.HeldBack(c)) {
      trace.held_back[trace.held_back_count++] = c.node;
    }
  }
}

}  // namespace

const char* TtlReasonName(TtlReason r) { return NameOf(kTtlReasons, r); }

double RampShare(const Candidate& c, int64_t slow_start_ms, int64_t now_ms) {
  if (slow_start_ms <= 0 || c.ramp_start_ms <= 0) return 1;
  const int64_t elapsed = now_ms - c.ramp_start_ms;
  if (elapsed >= slow_start_ms) return 1;
  return std::max<double>(0, elapsed) / static_cast<double>(slow_start_ms);
}

uint64_t ClientCohort(const IpAddress& client) {
  return PrefixHash(client, CohortPrefixLength(client.family));
}

double DistanceKm(const GeoPoint& a, const GeoPoint& b) {
  constexpr double kEarthRadiusKm = 6371.0;
  constexpr double kRad = M_PI / 180.0;
  const double dlat = (b.lat - a.lat) * kRad;
  const double dlon = (b.lon - a.lon) * kRad;
  const double h = std::sin(dlat / 2) * std::sin(dlat / 2) +
                   std::cos(a.lat * kRad) * std::cos(b.lat * kRad) *
                       std::sin(dlon / 2) * std::sin(dlon / 2);
  return 2 * kEarthRadiusKm * std::asin(std::min(1.0, std::sqrt(h)));
}

Answer Decide(const Snapshot& s, const SnapshotDomain& d, uint32_t region,
              const ClientContext& client, std::optional<IpFamily> family,
              int64_t now_ms, Rng& rng, DecisionTrace* trace) {
  return DecideUpTo(d.max_answers, s, d, region, client, family, now_ms, rng,
                    trace);
}

Answer DecideUpTo(uint32_t max_answers, const Snapshot& s,
                  const SnapshotDomain& d, uint32_t region,
                  const ClientContext& client, std::optional<IpFamily> family,
                  int64_t now_ms, Rng& rng, DecisionTrace* trace) {
  Answer answer;
  const size_t slot =
      region < d.routes.size() - 1 ? region : d.routes.size() - 1;
  answer.route = d.routes[slot];
  const bool spills = s.routes[answer.route].spill_route != kNoIndex;
  const Route& route = SpillIfDrawn(s, client, trace, answer);
  answer.source = route.source;
  const uint32_t limit = std::min(max_answers, kMaxAnswers);
  const Offer offer(s, d, route, client, family, now_ms);
  if (trace) TraceHeldBack(offer, route, *trace);
  if (route.source == RouteSource::kDomainFallback ||
      route.source == RouteSource::kFailOpen) {
    answer.ttl = d.ttl.failover;
    answer.ttl_reason = TtlReason::kFallback;
    // Failing open, several unverified nodes give clients more chances than
    // one.
    PickInOrder(offer, route, limit, answer);
    return answer;
  }
  answer.ttl = d.ttl.steady;
  if (route.canary != kNoIndex) {
    const SnapshotCanary& canary = s.canaries[route.canary];
    // Stable cohorts: the bucket depends only on (client subnet, canary), so
    // raising the percent only adds clients; nobody already in the canary
    // leaves it.
    const uint64_t bucket = CohortBucket(client.cohort, canary.name_hash);
    if (trace) {
      trace->canary_considered = true;
      trace->canary_bucket = bucket;
      trace->canary_percent = canary.percent;
    }
    if (InPercent(bucket, canary.percent) &&
        HasFamily(s.nodes[canary.node], family)) {
      answer.nodes[answer.count++] = canary.node;
      answer.canary = true;
    }
    // Both sides of the split re-ask sooner, so that a step change takes
    // effect.
    if (d.ttl.canary < answer.ttl) {
      answer.ttl = d.ttl.canary;
      answer.ttl_reason = TtlReason::kCanary;
    }
  }
  if (spills && d.ttl.failover < answer.ttl) {
    // The spilled share follows load: both sides re-ask soon.
    answer.ttl = d.ttl.failover;
    answer.ttl_reason = TtlReason::kSpill;
  }
  if (now_ms < route.failover_until_ms && d.ttl.failover <= answer.ttl) {
    answer.ttl = d.ttl.failover;
    answer.ttl_reason = TtlReason::kFailover;
  }
  PickByStrategy(offer, d, route, client, limit, rng, trace, answer);
  return answer;
}

}  // namespace ax
