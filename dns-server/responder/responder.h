// The query path as bytes in -> bytes out (no sockets): parse the query,
// rate-limit, classify the client (ECS or source address, geo lookup), pick
// nodes from the snapshot, and write the answer. Shared by the UDP and TCP
// servers and the fuzz target. Never throws, never crashes on packet content:
// malformed queries get FORMERR or are dropped. Sockets and threads are the
// server's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "ax/decide.h"
#include "ax/ip.h"
#include "ax/rng.h"
#include "responder/client_subnet.h"
#include "responder/serving_state.h"
#include "wire/message_reader.h"

namespace ax::dns {

class GeoResolver;   // geo/geo_resolver.h
class GeoRegionMap;  // responder/geo_regions.h

// What a query classifies with: the geo resolver (null: no geo database) and
// the serving state's region map, used only when built from that resolver.
struct GeoRefs {
  // Implicit: most callers have only a resolver, or nullptr.
  GeoRefs(const GeoResolver* resolver_in = nullptr,  // NOLINT
          const GeoRegionMap* regions_in = nullptr)
      : resolver(resolver_in), regions(regions_in) {}
  const GeoResolver* resolver;
  const GeoRegionMap* regions;
};
class RateLimiter;  // responder/rrl.h

enum class Transport : uint8_t { kUdp, kTcp };

// Everything about one query that is not in its bytes.
struct QueryMeta {
  IpAddress source;  // the peer address (the resolver, usually)
  Transport transport = Transport::kUdp;
  int64_t now_ms = 0;    // wall clock: canary windows, the decision log
  uint64_t mono_us = 0;  // monotonic clock: rate limiting
};

// What happened, for metrics and the decision log (issue 4). Filled by Respond.
struct ResponseInfo {
  uint16_t qtype = 0;
  uint8_t rcode = 0;
  bool dropped = false;    // no response at all (unparseable header, RRL drop)
  bool truncated = false;  // TC=1 (too big for UDP, or RRL slip)
  bool rrl_limited = false;
  bool ecs = false;       // the query carried a valid ECS option
  uint8_t ecs_scope = 0;  // SCOPE PREFIX-LENGTH echoed, when `ecs`
  uint32_t domain =
      UINT32_MAX;  // snapshot domain index when a GSLB name was asked
  uint32_t region = UINT32_MAX;  // classification result
  uint32_t route = UINT32_MAX;
  uint8_t answers = 0;
  bool geo_failed = false;  // a geo database lookup errored
  ClientAddress client;     // who the answer was tailored to (ECS or source)
  Answer decision;          // the GSLB pick, when `route` is set
};

struct ResponderOptions {
  std::string identity;  // CHAOS TXT id.server / hostname.bind (the pod name)
  // Advertised (RFC 6891 §6.2.5); also the cap on UDP answers we send, which
  // are at most min(max(512, requester's size), this) octets. Values below 512
  // count as 512. The default avoids IP fragmentation (DNS flag day 2020).
  uint16_t edns_udp_size = 1232;
  int ecs_max_v4 = 24;  // RFC 7871 §11.1: source prefixes are capped to these
  int ecs_max_v6 = 56;
};

// A query parsed, its client chosen and its rate-limit key computed: the
// first half of Respond (Responder::Prepare). A worker prepares a few queries
// of a batch before completing any: the loads their answers start with (the
// rate-limit bucket, the client's region-map bucket) miss the caches, and are
// prefetched here so that they overlap instead of stalling one by one.
struct PreparedQuery {
  ParsedQuery q;
  IpAddress source;  // the peer, IPv4-mapped addresses unmapped
  ClientAddress client;
  size_t name_hash = 0;     // ServingState::NameHash of the question's name
  uint64_t rrl_key = 0;     // of an answer, when rate-limited and answerable
  uint32_t rrl_weight = 0;  // RateLimiter::AnswerWeight of rrl_key
  bool parsed = false;      // false: too short, or a response: send nothing
  bool well_formed = false;
};

// One per worker thread: owns the worker's RNGs. The rate limiter may be shared
// by every worker (rrl.h) or null (no rate limiting); it is only consulted for
// UDP.
class Responder {
 public:
  Responder(ResponderOptions options, uint64_t rng_seed, RateLimiter* rrl);

  // Writes the response into `out` and returns its size; 0 means send nothing.
  // `state` may be null (nothing loaded yet): every query gets SERVFAIL.
  // `geo.resolver` may be null (no geo database): classification uses CIDRs
  // and catch-all only.
  size_t Respond(const ServingState* state, GeoRefs geo, const QueryMeta& meta,
                 std::span<const uint8_t> query, std::span<uint8_t> out,
                 ResponseInfo* info = nullptr);

  // Respond in two halves: Prepare parses `query` into `p` and prefetches
  // what Complete will read; Complete writes the response. `geo` and `meta`
  // must be the same for both halves of a query.
  void Prepare(GeoRefs geo, const QueryMeta& meta,
               std::span<const uint8_t> query, PreparedQuery* p);
  // Between the two, a while after Prepare: the second of the dependent
  // loads Complete starts with (geo_regions.h).
  static void PrefetchMore(GeoRefs geo, const PreparedQuery& p);
  size_t Complete(const ServingState* state, GeoRefs geo, const QueryMeta& meta,
                  const PreparedQuery& p, std::span<uint8_t> out,
                  ResponseInfo* info = nullptr);

 private:
  ResponderOptions options_;
  Rng rng_;
  // Samples answers for the rate limiter: a stream of its own, so that the
  // picks' stream (and a seeded test's answers) does not depend on it.
  Rng rrl_rng_;
  RateLimiter* rrl_;
};

}  // namespace ax::dns
