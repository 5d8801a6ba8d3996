// Per-worker query counters for /metrics: fixed arrays indexed by small enums
// (protocol, qtype, rcode), a sampled responder-time histogram and the RRL and
// geo counts. One worker writes its own cells (plain relaxed load+store, no
// read-modify-write), the scraper sums every worker's cells. Nothing here
// allocates or locks.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "server/counter.h"

namespace ax::dns {

inline constexpr size_t kProtocols = 2;  // Transport: udp, tcp
std::string_view ProtocolLabel(size_t protocol);

// QTYPEs worth a label of their own; everything else is "other".
inline constexpr size_t kQtypeLabels = 14;
size_t QtypeIndex(uint16_t qtype);
std::string_view QtypeLabel(size_t index);
// The mnemonic of `qtype` for logs: a QtypeLabel, or "TYPE<n>" (RFC 3597).
std::string QtypeText(uint16_t qtype);

inline constexpr size_t kRcodeLabels = 8;
size_t RcodeIndex(uint8_t rcode);
std::string_view RcodeLabel(size_t index);

// Upper bounds (seconds) of the responder-time histogram; +Inf is implied. A
// query takes about a microsecond, so the buckets are fine at the low end.
inline constexpr std::array<double, 10> kDurationBounds = {
    1e-6, 2.5e-6, 5e-6, 1e-5, 2.5e-5, 5e-5, 1e-4, 2.5e-4, 1e-3, 1e-2};

struct alignas(64) QueryCounters {
  // Responses sent, by protocol x qtype x rcode.
  Counter queries[kProtocols][kQtypeLabels][kRcodeLabels];
  Counter malformed[kProtocols];  // no response: unparseable header or a reply
  Counter truncated[kProtocols];  // TC=1 sent (too big, or an RRL slip)
  Counter ecs[kProtocols];        // queries carrying a valid ECS option
  Counter rrl_drops, rrl_slips;
  Counter geo_failures;
  // Sampled responder time: buckets[i] counts samples <= kDurationBounds[i]
  // (not cumulative; the scraper accumulates), the last one the rest.
  Counter duration_buckets[kDurationBounds.size() + 1];
  Counter duration_count;
  Counter duration_sum_ns;
};

}  // namespace ax::dns
