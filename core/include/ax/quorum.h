// Multi-vantage health quorum: combines each vantage's per-node tracker output
// (health.h) into one verdict per node, ignoring stale reports and discounting
// a vantage that is probably cut off. Pure: `now_ms` is an argument. Tracking a
// single vantage's probes lives in health.h; reading ProbeReports at the edges.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ax/node_status.h"
#include "ax/vantage.h"

namespace ax {

// One vantage's latest view: its trackers' ToStatus() per node name.
struct VantageVerdicts {
  std::string vantage;
  VantageIdentity identity;  // which groups it measures for (vantage.h)
  int64_t observed_at_ms = 0;
  std::map<std::string, NodeStatus> nodes;
};

struct QuorumPolicy {
  int64_t max_age_ms = 30000;  // older reports are stale and ignored
  // Reports stamped further ahead of now are ignored: beyond this it is not
  // clock skew but a broken clock, or a forged report that would otherwise
  // stay fresh forever.
  int64_t max_future_ms = 10000;
  // A vantage must report at least this many nodes, all Down, to be judged cut
  // off: with one node, "all down" is just that node being down.
  uint32_t min_nodes_for_cutoff = 2;
};

struct NodeVerdict {
  Health health = Health::kUnknown;
  uint32_t up_votes = 0;
  uint32_t down_votes = 0;
  uint32_t unknown_votes = 0;
  std::vector<std::string> counted;  // vantages whose vote counted
  std::vector<std::string> stale;    // reported this node, too old (or ahead)
  std::vector<std::string> discounted;  // reported this node, cut off
  std::optional<double> latency_ms;     // median over counted vantages
  std::optional<NodeLoad> load;         // from the freshest counted vantage
  std::optional<double> error_rate;     // the same, and that report's time:
  int64_t error_rate_at_ms = 0;
  int64_t health_changed_at_ms = 0;  // 0: unknown / never
  std::string reason;  // "2/3 vantages up (vantage-c discounted: ...)"
};

struct QuorumResult {
  std::map<std::string, NodeVerdict> nodes;   // every node any vantage reported
  std::vector<std::string> cut_off_vantages;  // sorted
  std::vector<std::string> stale_vantages;    // sorted
  std::vector<std::string> future_vantages;   // sorted: stamped too far ahead

  StatusMap ToStatusMap() const;
};

// Whether a report observed at `observed_at_ms` is too old to count at
// `now_ms`. A report stamped slightly in the future (clock skew) is fresh.
bool IsStale(int64_t observed_at_ms, int64_t now_ms,
             const QuorumPolicy& policy);
// Whether it is stamped more than max_future_ms ahead of `now_ms`: ignored
// (neither fresh nor stale) until now catches up.
bool IsFromTheFuture(int64_t observed_at_ms, int64_t now_ms,
                     const QuorumPolicy& policy);

// The report DecideQuorum uses per vantage name: the freshest one (the first
// of equally fresh ones), in name order.
std::map<std::string, const VantageVerdicts*> LatestPerVantage(
    const std::vector<VantageVerdicts>& reports);

// Decides every reported node. Rules: a report older than max_age_ms is stale;
// one stamped more than max_future_ms ahead is ignored.
// A fresh vantage reporting >= min_nodes_for_cutoff nodes, all Down, while
// another fresh vantage sees one of those nodes Up, is cut off and discounted.
// Among counted Up/Down votes the strict majority wins; a tie keeps the node Up
// (fail-open); no Up/Down votes leave it Unknown. If a vantage name appears
// twice, its freshest report is used.
QuorumResult DecideQuorum(const std::vector<VantageVerdicts>& reports,
                          int64_t now_ms, const QuorumPolicy& policy);

// The same vote among the members of `group` only. Which vantages are cut off
// comes from `global` (DecideQuorum over every report): one group cannot tell
// its own partition from an outage, only the other vantages can.
QuorumResult DecideGroupQuorum(const std::vector<VantageVerdicts>& reports,
                               const VantageGroup& group,
                               const QuorumResult& global, int64_t now_ms,
                               const QuorumPolicy& policy);

// The vantages whose votes counted for some node: fresh, not cut off. A group
// quorum without any has nothing to say, and its Regions use the global one.
std::vector<std::string> CountedVantages(const QuorumResult& result);

// Per vantage group of the world's Regions (VantageGroupOf), by group name:
// its quorum. Regions without a group have no entry.
using GroupQuorums = std::map<std::string, QuorumResult>;
GroupQuorums DecideGroupQuorums(const std::vector<Region>& regions,
                                const std::vector<VantageVerdicts>& reports,
                                const QuorumResult& global, int64_t now_ms,
                                const QuorumPolicy& policy);

}  // namespace ax
