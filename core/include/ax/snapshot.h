// The route table: the one contract between control plane and data plane
// (docs/architecture.md). A flat, index-based, immutable value: nodes,
// classification regions, domains and the ranked candidate routes per (domain,
// region), with everything needed to explain an answer. Building lives in
// build_snapshot.h, JSON in snapshot_json.h, picking in decide.h.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "ax/ip.h"
#include "ax/model.h"
#include "ax/node_status.h"

namespace ax {

// 2: regions name a vantage group, and the groups' views of the nodes
// (issue 14). 3: ISP sets, which region matches name (issue 16). 4: region
// cities. 5: geo overrides. 6: slow start (when nodes turned Up, each
// domain's window, candidates' ramps), spill-over routes, the same-ISP last
// resort (issue 18). 7: each domain's SRV services (issue 19). 8: the anycast
// route sources, Anycast and AnycastFallback (issue 19). A reader takes only
// its own version.
inline constexpr int kSnapshotFormatVersion = 8;
inline constexpr uint32_t kNoIndex = UINT32_MAX;

struct SnapshotNode {
  std::string name;
  std::vector<IpAddress> addresses;
  std::string area;
  std::string isp;
  bool has_location = false;
  GeoPoint location;
  uint32_t weight = 100;
  AdminState admin_state = AdminState::kActive;
  Health health = Health::kUnknown;
  double latency_ms = -1;  // -1: not measured
  double utilisation =
      -1;  // max(load/capacity) over declared capacities; -1: unknown
  // When the node last turned Up as the global quorum sees it (from Down or
  // Unknown, or by joining); 0: not Up, or Up since before the tables this
  // one descends from.
  int64_t up_since_ms = 0;
  std::string redirect_url;
  // Derived, not serialised: Fnv1a64(name), filled by IndexSnapshot() for
  // hashing picks.
  uint64_t name_hash = 0;
};

struct SnapshotRegion {
  std::string name;
  std::string area;
  std::string isp;
  RegionMatch match;
  std::vector<std::string> fallback_regions;
  // Index into Snapshot::vantage_groups: the group whose verdicts this
  // region's routes use; kNoIndex: the global ones.
  uint32_t vantage_group = kNoIndex;
};

// A carrier's networks as classification reads them (isp_sets.h): what a
// region's match.isps names.
struct SnapshotIspSet {
  std::string name;
  std::vector<uint32_t> asns;      // ascending, unique, none 0
  std::vector<std::string> names;  // database ISP names: ascending, unique
  bool operator==(const SnapshotIspSet&) const = default;
};

// A GeoOverride in force (approved, not expired): classification puts
// clients in `cidrs` in `region` (classify.h).
struct SnapshotGeoOverride {
  std::string name;
  std::vector<IpPrefix> cidrs;
  uint32_t region = kNoIndex;  // index into Snapshot::regions
  std::string reason;
  int64_t expires_at_ms = 0;  // 0: never
  bool has_evidence = false;
  GeoOverrideEvidence evidence;
  bool operator==(const SnapshotGeoOverride&) const = default;
};

// One node as one vantage group's quorum sees it.
struct GroupNodeView {
  uint32_t node = kNoIndex;  // index into Snapshot::nodes
  Health health = Health::kUnknown;
  double latency_ms = -1;  // -1: not measured
  uint32_t up_votes = 0;
  uint32_t down_votes = 0;
  int64_t up_since_ms = 0;  // as SnapshotNode::up_since_ms, for this group
  bool operator==(const GroupNodeView&) const = default;
};

// The vantages that measure for some regions' clients (vantage.h) and what
// they saw. Where a group saw a node (Up or Down, not Unknown), its regions'
// candidates take that health and latency instead of the global ones.
struct SnapshotVantageGroup {
  std::string name;  // "cn-south-unicom", "{isp=unicom}"
  // Fresh, trusted vantages that voted; 0: none, so the group's regions use
  // the global verdicts (and say so).
  uint32_t vantages = 0;
  std::vector<GroupNodeView> nodes;  // by node index, unique
};

// The factors a candidate's score is the product of, each in (0, 1].
struct ScoreParts {
  double health = 1;
  double load = 1;
  double latency = 1;
  double priority = 1;
  double Total() const { return health * load * latency * priority; }
};

struct Candidate {
  uint32_t node = kNoIndex;  // index into Snapshot::nodes
  double weight = 0;         // effective weight used by weighted strategies
  ScoreParts score;
  // Slow start: when the node turned Up as this route's vantages see it, while
  // that is less than the domain's window before the build; 0: no ramp.
  int64_t ramp_start_ms = 0;
};

// Which step of the fallback chain produced a route's candidates.
enum class RouteSource : uint8_t {
  kRegion,           // the client's own region
  kAnycast,          // the domain's anycast PoPs, its answer outside the
                     // unicast regions (policy Default)
  kFallbackRegion,   // one of its fallbackRegions (named in `via`)
  kIspHealthy,       // every healthy node of the region's ISP (the last resort,
                     // the client's own carrier first)
  kAllHealthy,       // every healthy node the domain selects
  kAnycastFallback,  // the anycast PoPs once no unicast node serves
                     // (policy Fallback)
  kDomainFallback,   // the domain's CNAME / fixed addresses
  kFailOpen,  // nothing healthy and no domain fallback: not-disabled nodes,
              // unverified
};
const char* RouteSourceName(RouteSource s);
std::optional<RouteSource> ParseRouteSource(std::string_view name);

// Ranked candidates for one (domain, region). Routes are deduplicated: domains
// whose routes are identical share one entry.
struct Route {
  RouteSource source = RouteSource::kRegion;
  std::string via;  // fallback region name, for kFallbackRegion
  std::vector<Candidate>
      candidates;  // eligible, best first; empty for kDomainFallback
  std::vector<std::string> rules;  // names of Rules that shaped this route
  uint32_t canary = kNoIndex;  // index into Snapshot::canaries when one applies
  bool hysteresis_held =
      false;  // the previous primary was kept against a challenger
  int64_t failover_until_ms = 0;  // answers use the failover TTL until then
  // Spill-over: this share (0..1) of the region's client subnets (a stable
  // cohort) is answered from `spill_route` (its next fallback region) while
  // the region's nodes are past the load knee.
  double spill_share = 0;
  uint32_t spill_route = kNoIndex;  // index into Snapshot::routes
  bool operator==(const Route&) const;
};

struct SnapshotCanary {
  std::string name;
  std::string domain;  // Domain object name
  uint32_t node = kNoIndex;
  double percent = 0;  // 0..100, share of client cohorts
  // Derived, not serialised: Fnv1a64(name), salts the cohort hash per canary.
  uint64_t name_hash = 0;
};

struct SnapshotDomain {
  std::string name;  // Domain object name
  std::string fqdn;
  std::string zone;
  Strategy strategy = Strategy::kRegionPriority;
  uint32_t max_answers = 2;
  TtlPolicy ttl;
  uint32_t hysteresis_percent = 15;
  int64_t slow_start_ms = 0;  // Domain spec.slowStartSeconds; 0: no ramps
  DomainFallback fallback;
  std::string grpc_service_config;
  std::vector<SrvService> srv;  // served as SRV records (srv.h)
  // routes[i] is the index into Snapshot::routes for Snapshot::regions[i]; the
  // extra last element is the route for clients no region claims (kAllHealthy
  // or fallback).
  std::vector<uint32_t> routes;
};

struct Snapshot {
  int format_version = kSnapshotFormatVersion;
  uint64_t version = 0;
  int64_t generated_at_ms = 0;
  std::string content_hash;  // over everything but version/generatedAt/hash
  std::vector<SnapshotNode> nodes;
  std::vector<SnapshotRegion> regions;
  std::vector<SnapshotDomain> domains;
  std::vector<Route> routes;
  std::vector<SnapshotCanary> canaries;
  std::vector<SnapshotVantageGroup> vantage_groups;  // by name
  // The ISP sets regions match on, by name; only those some region names.
  std::vector<SnapshotIspSet> isp_sets;
  std::vector<SnapshotGeoOverride> geo_overrides;  // by name
};

// Fills the derived fields (the name_hash members). Builder and parser both
// call it.
void IndexSnapshot(Snapshot& snapshot);

// The group whose verdicts region `r`'s routes use, or null: the global ones.
const SnapshotVantageGroup* GroupOf(const Snapshot& s, const SnapshotRegion& r);

// What `group` saw of node index `node` (Up or Down) where its regions' answers
// take it, or null: no group, no fresh vantage in it (its regions use the
// global verdicts), or the node not probed from there yet.
const GroupNodeView* SeenByGroup(const SnapshotVantageGroup* group,
                                 uint32_t node);

// Every (group, node) where a group with fresh vantages sees the node Down,
// with the node's global health: what the operator's and ax-dns's
// *_vantage_group_node_down metrics (and their alert) read.
std::map<std::pair<std::string, std::string>, Health> NodesDownByGroup(
    const Snapshot& s);

}  // namespace ax
