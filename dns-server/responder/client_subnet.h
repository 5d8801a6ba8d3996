// Who a query is answered for: the EDNS Client Subnet address (RFC 7871),
// masked to our caps, or else the packet source; and the SCOPE PREFIX-LENGTH an
// answer holds for (§7.2.1). Pure functions of their arguments; no packet
// parsing here.
#pragma once

#include "ax/classify.h"
#include "ax/ip.h"
#include "wire/edns.h"

namespace ax::dns {

struct ClientAddress {
  IpAddress address;      // what classification and the cohort hash see
  int prefix_length = 0;  // bits of `address` that come from the client
  bool from_ecs = false;
};

// ::ffff:a.b.c.d becomes a.b.c.d (a dual-stack socket's view of an IPv4 peer).
IpAddress Unmapped(const IpAddress& ip);

// The ECS address masked to min(SOURCE PREFIX-LENGTH, cap) when the query
// carried a usable option; else the (unmapped) packet source at full length.
// SOURCE 0 opts out of tailoring by client address (RFC 7871 §7.1.2): the
// source address is used, as for no option at all. Caps follow §11.1's privacy
// advice (/24, /56 by default).
ClientAddress ChooseClientAddress(const IpAddress& source,
                                  const EdnsQuery& edns, int cap_v4,
                                  int cap_v6);

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
