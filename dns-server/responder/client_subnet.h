// Who a query is answered for: the EDNS Client Subnet address (RFC 7871),
// masked to our caps, or else the packet source; and the SCOPE PREFIX-LENGTH an
// answer holds for (§7.2.1). Pure functions of their arguments; no packet
// parsing here.
#pragma once

#include <algorithm>
#include <cstring>

#include "ax/classify.h"
#include "ax/ip.h"
#include "wire/edns.h"

namespace ax::dns {

struct ClientAddress {
  IpAddress address;      // what classification and the cohort hash see
  int prefix_length = 0;  // bits of `address` that come from the client
  bool from_ecs = false;
};

// Both inline: every query takes them, and a call returns its address
// through memory that the caller reads back wider than it was written (a
// stalled store-to-load forward).

// ::ffff:a.b.c.d becomes a.b.c.d (a dual-stack socket's view of an IPv4 peer).
inline IpAddress Unmapped(const IpAddress& ip) {
  constexpr uint8_t kMappedPrefix[12] = {0, 0, 0, 0, 0,    0,
                                         0, 0, 0, 0, 0xFF, 0xFF};
  // Copied whole, then rewritten in place when mapped: a copy assembled
  // field by field would be read back whole, a stalled forward.
  IpAddress out = ip;
  if (out.family == IpFamily::kV6 &&
      std::memcmp(out.bytes.data(), kMappedPrefix, sizeof(kMappedPrefix)) ==
          0) {
    out.family = IpFamily::kV4;
    std::memmove(out.bytes.data(), &out.bytes[12], 4);
    std::memset(&out.bytes[4], 0, 12);
  }
  return out;
}

// The ECS address masked to min(SOURCE PREFIX-LENGTH, cap) when the query
// carried a usable option; else `source` at full length. `source` is the
// packet source already unmapped (Unmapped): callers have it at hand.
// SOURCE 0 opts out of tailoring by client address (RFC 7871 §7.1.2): the
// source address is used, as for no option at all. Caps follow §11.1's privacy
// advice (/24, /56 by default).
inline ClientAddress ChooseClientAddress(const IpAddress& source,
                                         const EdnsQuery& edns, int cap_v4,
                                         int cap_v6) {
  const ClientSubnet& ecs = edns.client_subnet;
  if (!edns.has_client_subnet || ecs.source_prefix == 0) {
    return {source, source.BitLength(), false};
  }
  IpAddress ip;
  ip.family = ecs.family == kEcsFamilyV4 ? IpFamily::kV4 : IpFamily::kV6;
  // All 16 octets in one copy (Mask clears whatever lies past the SOURCE
  // PREFIX-LENGTH): octet by octet, Mask's word reads would wait on the
  // narrow stores (a stalled store-to-load forward).
  ip.bytes = ecs.address;
  const int cap = ip.family == IpFamily::kV4 ? cap_v4 : cap_v6;
  const int used = std::min<int>(ecs.source_prefix, cap);
  return {Mask(ip, used), used, true};
}

// What an answer depends on, for its SCOPE PREFIX-LENGTH.
struct ScopeInputs {
  bool depends_on_region =
      false;  // different regions would get different routes
  bool depends_on_subnet =
      false;  // the pick hashes or locates the client subnet
};

// The widest prefix for which the same answer holds: 0 when it depends on
// neither region nor subnet; else the classification's scope (capped at the
// bits actually used), raised to the cohort prefix (/24, /56) when the pick
// depends on the subnet. A scope longer than the source prefix is legitimate
// (§7.2.1).
int AnswerScope(const Classification& classification,
                const ClientAddress& client, const ScopeInputs& inputs);

}  // namespace ax::dns
