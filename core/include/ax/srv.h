// SRV answers (RFC 2782) from the GSLB decision, for proxies that discover
// backends through DNS (HAProxy server-template, Envoy, gRPC): which nodes an
// SRV answer lists for a client, with which priority and weight. Pure and
// allocation-free (the data plane calls it per query); the records' wire
// layout and target names are the responder's.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "ax/decide.h"
#include "ax/rng.h"
#include "ax/snapshot.h"

namespace ax {

// The names SRV answers use (text, lower case, no trailing dot): the owner
// _<service>._<protocol>.<fqdn>, and the target <node>.<fqdn> of each node.
std::string SrvOwnerName(const SrvService& service, std::string_view fqdn);
std::string SrvTargetName(std::string_view node, std::string_view fqdn);

// Whether the strategy spreads clients over its nodes by weight
// (WeightedRandom, ConsistentHash) rather than ranking them for each client.
// A proxy stands for many clients, so its SRV answer then lists every node
// the spread reaches, at one priority, instead of one client's draw.
bool SpreadsByWeight(Strategy strategy);

// The pick an SRV answer lists: Decide's (maxAnswers, best first) for a
// ranking strategy; for a spreading one every node the client could be
// given, up to kMaxAnswers. Region, Rules, Canary cohort, spill-over, slow
// start and the fallback chain apply as for A/AAAA; any address family.
Answer DecideSrv(const Snapshot& snapshot, const SnapshotDomain& domain,
                 uint32_t region, const ClientContext& client, int64_t now_ms,
                 Rng& rng, DecisionTrace* trace = nullptr);

struct SrvTarget {
  uint32_t node = kNoIndex;  // index into Snapshot::nodes
  uint16_t priority = 0;
  uint16_t weight = 0;
};

struct SrvTargets {
  std::array<SrvTarget, kMaxAnswers> targets{};
  uint32_t count = 0;
};

// Priority and weight per node of `answer`, in its order. Priority: 0, 1, 2...
// for a ranking strategy (RFC 2782 clients try the lowest first; HAProxy,
// which ignores priority, balances over the set), 0 for all when spreading.
// Weight: the node's effective weight in the answer's route scaled so that the
// largest is 65535 (weights are relative, RFC 2782; HAProxy turns them into
// its 1..256 as weight / 256 + 1), 0 staying 0; the canary node, which is not
// a member of the route, takes the largest. None for a DomainFallback answer.
SrvTargets SrvTargetsOf(const Snapshot& snapshot, const SnapshotDomain& domain,
                        const Answer& answer);

}  // namespace ax
