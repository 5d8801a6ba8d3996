// The declared world: C++ mirrors of the gslb.ax.io/v1alpha1 resources (Domain,
// Region, Node, Rule, Canary, IspSet, GeoOverride) as users write them. Plain
// data only: parsing lives in model_parse.h, cross-object checks in validate.h,
// decisions elsewhere.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ax/api_kinds.h"
#include "ax/ip.h"
#include "ax/labels.h"

namespace ax {

// How a Domain orders and picks among its candidates (crds/domain.yaml).
enum class Strategy : uint8_t {
  kRegionPriority,    // "RegionPriority": region order, corrected by measured
                      // latency (default)
  kWeightedRandom,    // "WeightedRandom": weights are shares of answers
  kLeastConnections,  // "LeastConnections": lowest utilisation first
  kConsistentHash,  // "ConsistentHash": rendezvous hashing on the client subnet
  kLatency,         // "Latency": lowest measured latency first
  kGeoClosest,      // "GeoClosest": great-circle distance client -> node
  kFailover,        // "Failover": strict priority order, no correction
};

enum class AdminState : uint8_t { kActive, kDrain, kDisabled };
enum class ProbeProtocol : uint8_t { kTcp, kHttp, kHttps };
enum class RuleAction : uint8_t { kPin, kExclude, kWeight };

// Where an object came from, for error messages:
// "examples/quickstart/nodes.yaml#3".
struct ObjectMeta {
  std::string name;
  std::string namespace_name;
  std::map<std::string, std::string> labels;
  int64_t generation = 0;
  std::string source;
};

// Whether something with an optional expiresAt (unix seconds) has stopped
// applying at `now_ms`: from expiresAt on, inclusive. The one definition the
// builder and the operator's statuses share (Rule, GeoOverride).
inline bool ExpiredAt(const std::optional<int64_t>& expires_at,
                      int64_t now_ms) {
  return expires_at && *expires_at * 1000 <= now_ms;
}

struct TtlPolicy {
  uint32_t steady = 300;
  uint32_t failover = 60;
  uint32_t canary = 120;
};

// What a Domain answers when no node can: an origin CNAME or fixed addresses.
struct DomainFallback {
  std::string cname;
  std::vector<IpAddress> addresses;
  bool empty() const { return cname.empty() && addresses.empty(); }
};

// A service the Domain publishes as SRV records (RFC 2782) at
// _<service>._<protocol>.<fqdn>: the nodes of each answer as targets
// <node>.<fqdn> on `port`, for proxies that discover backends through DNS.
struct SrvService {
  std::string service;   // RFC 6335 §5.1 service name, without the '_'
  std::string protocol;  // "tcp" or "udp", without the '_'
  uint16_t port = 0;
  bool operator==(const SrvService&) const = default;
};

// Anycast PoPs beside the unicast nodes: Nodes whose addresses are anycast
// addresses (announced from several places, BGP picking the nearest), their
// healthCheck probing each PoP's own unicast address.
enum class AnycastPolicy : uint8_t {
  kDefault,   // "Default": anycast for every client but unicastRegions'
  kFallback,  // "Fallback": unicast; anycast after the last healthy unicast
              // node, instead of the domain's fallback
};

struct DomainAnycast {
  // matchLabels on Node labels: the PoPs. Empty: the domain has no anycast.
  std::map<std::string, std::string> node_selector;
  AnycastPolicy policy = AnycastPolicy::kDefault;
  // Default policy: the Regions answered unicast (the chain of their own
  // nodes), e.g. video and large files per carrier.
  std::vector<std::string> unicast_regions;
  bool enabled() const { return !node_selector.empty(); }
  bool operator==(const DomainAnycast&) const = default;
};

struct Domain {
  ObjectMeta meta;
  std::string fqdn;  // lower case, no trailing dot
  std::string zone;  // lower case, no trailing dot; fqdn is inside it
  Strategy strategy = Strategy::kRegionPriority;
  std::map<std::string, std::string>
      node_selector;  // matchLabels on Node labels
  uint32_t max_answers = 2;
  TtlPolicy ttl;
  uint32_t hysteresis_percent = 15;
  // A node that turns Up (after Down or Unknown, or on joining) is answered to
  // a share of client subnets growing linearly over this many seconds, so a
  // recovering node is not flooded; 0: at once (decide.h).
  uint32_t slow_start_seconds = 0;
  // Whether a node whose health nobody has measured yet (before its first
  // verdict) may be answered, at a health penalty.
  bool answer_unknown = false;
  DomainFallback fallback;
  std::string
      grpc_service_config;  // JSON text, served as TXT _grpc_config.<fqdn>
  std::vector<SrvService> srv;
  DomainAnycast anycast;
};

struct RegionMatch {
  std::vector<std::string> countries;     // ISO 3166-1 alpha-2, upper case
  std::vector<std::string> subdivisions;  // ISO 3166-2, e.g. "CN-GD"
  // Cities as the geo data names them, qualified by their subdivision or
  // country: "CN-GD/Shenzhen", "US/Ashburn".
  std::vector<std::string> cities;
  std::vector<uint32_t> asns;
  // ISP sets by name (IspSet, isp_sets.h): a client matches by its ASN or the
  // ISP name its geo database gives, like a client in `asns`.
  std::vector<std::string> isps;
  std::vector<IpPrefix> cidrs;
  bool catch_all = false;  // `default: true`: clients nothing else claims
};

struct Region {
  ObjectMeta meta;
  std::string area;
  std::string isp;  // an ISP set's name, or "any" when the region does not
                    // split by ISP
  RegionMatch match;
  std::vector<std::string> nodes;  // priority order
  std::vector<std::string>
      fallback_regions;  // tried in order when no node is healthy
  // spec.vantageSelector (matchLabels, matchExpressions): the vantages that
  // measure for this region's clients; unset: those of its area and isp
  // (vantage.h).
  std::optional<LabelSelector> vantage_selector;
};

// Flap damping of a node's health, after BGP route flap damping (RFC 2439
// §4.2): each Up -> Down change adds a penalty that halves every half-life;
// past the suppress limit the node is held Down, however its probes go, until
// the penalty decays below the reuse limit (at most maxSuppress).
struct FlapDamping {
  bool enabled = true;
  uint32_t half_life_ms = 15 * 60 * 1000;     // RFC 2439 §4.2's 15 minutes
  uint32_t max_suppress_ms = 60 * 60 * 1000;  // and its 60 minutes
};

struct HealthCheck {
  ProbeProtocol protocol = ProbeProtocol::kTcp;
  uint16_t port = 0;
  // Probe this address instead of the node's first one (a management or
  // loopback address of the same box); absent: the first address.
  std::optional<IpAddress> address;
  std::string path = "/";
  std::string host;
  std::vector<int> expect_status{200};
  std::string body_match;
  uint32_t timeout_ms = 2000;
  uint32_t interval_ms = 5000;
  uint32_t failure_threshold = 3;
  uint32_t success_threshold = 5;
  FlapDamping flap_damping;
  std::string token_secret_ref;
};

struct Capacity {
  double bandwidth_mbps = 0;  // 0 = not declared
  double connections = 0;     // 0 = not declared
};

struct GeoPoint {
  double lat = 0;
  double lon = 0;
};

struct Node {
  ObjectMeta meta;
  std::vector<IpAddress> addresses;
  std::string area;
  std::string isp;
  std::optional<GeoPoint> location;
  uint32_t weight = 100;
  Capacity capacity;
  std::optional<HealthCheck> health_check;  // absent: health follows adminState
  std::string redirect_url;
  AdminState admin_state = AdminState::kActive;
  // From then on (unix seconds) the node is Active again: a drain for a
  // maintenance window (`axctl drain --for`) cannot be forgotten. Why the state
  // was set, shown in the Node's conditions.
  std::optional<int64_t> admin_state_expires_at;
  std::string admin_state_reason;

  // The admin state in force at `now_ms`.
  AdminState AdminStateAt(int64_t now_ms) const {
    return ax::ExpiredAt(admin_state_expires_at, now_ms) ? AdminState::kActive
                                                         : admin_state;
  }
};

struct Rule {
  ObjectMeta meta;
  std::string domain;  // Domain object name
  std::string region;  // empty: every region
  std::string isp;     // empty: every ISP
  RuleAction action = RuleAction::kPin;
  std::string node;
  uint32_t weight = 0;                // for kWeight
  std::optional<int64_t> expires_at;  // unix seconds
  std::string reason;

  bool ExpiredAt(int64_t now_ms) const {
    return ax::ExpiredAt(expires_at, now_ms);
  }
};

struct CanaryStep {
  double percent = 0;
  uint32_t pause_seconds = 0;
};

// A signal read from Prometheus for a Canary: `query` (PromQL, "{{node}}"
// standing for a node's name) for the canary node and for each baseline node
// (the Domain's other nodes in the Canary's regions). The rollout fails when
// the canary's value stays above `max`, or above the baseline's by more than
// `max_over_baseline`, for `for_ms`.
struct CanaryMetric {
  std::string name;
  std::string prometheus;  // base URL: http://prometheus.monitoring:9090
  std::string query;
  std::optional<double> max;
  std::optional<double> max_over_baseline;
  uint32_t for_ms = 0;  // 0: one reading decides
};

// Limits on the error rate the nodes report in their health bodies
// ({"errorRate": 0.003}): the canary's latest, alone and against the mean of
// its baseline's.
struct CanaryErrorRate {
  std::optional<double> max;
  std::optional<double> max_over_baseline;
};

struct CanaryAnalysis {
  uint32_t max_failures = 0;
  double max_latency_ms = 0;      // 0 = not checked
  uint32_t interval_ms = 60'000;  // how often the metrics are read
  std::vector<CanaryMetric> metrics;
  std::optional<CanaryErrorRate> error_rate;
};

struct Canary {
  ObjectMeta meta;
  std::string domain;  // Domain object name
  std::string node;
  std::vector<std::string> regions;  // empty: every region
  std::vector<CanaryStep> steps;
  CanaryAnalysis analysis;
  // Status (written by the operator): the percent in force. Absent: the first
  // step.
  std::optional<double> status_percent;
  std::string status_phase;

  double EffectivePercent() const {
    if (status_percent) return *status_percent;
    return steps.empty() ? 0.0 : steps.front().percent;
  }
};

// A named set of carrier networks: ASNs and the ISP names geo databases give
// (ipdb's isp_domain, ip2region's ISP field). An IspSet named like a built-in
// set (isp_sets.h) adds to it, or replaces it with spec.replaceBuiltin.
struct IspSet {
  ObjectMeta meta;
  std::vector<uint32_t> asns;
  std::vector<std::string> names;
  bool replace_builtin = false;
};

// What measurement showed about a GeoOverride's prefixes (geo_suggest.h
// writes it; people may too): kept so a reviewer and explain can weigh it.
struct GeoOverrideEvidence {
  uint32_t samples = 0;   // measurements of the prefixes in the window
  std::string best_node;  // the node measured fastest
  double best_ms = 0;     // its median
  std::string db_region;  // where the geo database puts the prefixes
  std::string db_node;    // that region's fastest node as measured
  double db_ms = 0;       // its median
  int64_t from = 0;       // unix seconds: the measurements' window
  int64_t to = 0;
  bool operator==(const GeoOverrideEvidence&) const = default;
};

// A correction to the geo database: clients in `cidrs` belong to `region`,
// whatever the database says. Sits above the database and beside the
// Regions' own CIDRs (the longest prefix wins; an override wins a tie).
// A proposal (`approved` false) is listed but not applied; from expiresAt on
// it stops applying, as a Rule does.
struct GeoOverride {
  ObjectMeta meta;
  std::vector<IpPrefix> cidrs;
  std::string region;  // Region object name
  std::string reason;
  std::optional<int64_t> expires_at;  // unix seconds
  bool approved = true;
  std::optional<GeoOverrideEvidence> evidence;

  bool ExpiredAt(int64_t now_ms) const {
    return ax::ExpiredAt(expires_at, now_ms);
  }
  bool AppliesAt(int64_t now_ms) const {
    return approved && !ExpiredAt(now_ms);
  }
};

// Everything declared, in file order. Names are unique per kind (validate.h
// checks).
struct World {
  std::vector<Domain> domains;
  std::vector<Region> regions;
  std::vector<Node> nodes;
  std::vector<Rule> rules;
  std::vector<Canary> canaries;
  std::vector<IspSet> isp_sets;
  std::vector<GeoOverride> geo_overrides;
};

// Names used in manifests and snapshots for the enums above.
const char* StrategyName(Strategy s);
std::optional<Strategy> ParseStrategy(std::string_view name);
const char* AdminStateName(AdminState s);
std::optional<AdminState> ParseAdminState(std::string_view name);
const char* ProbeProtocolName(ProbeProtocol p);
std::optional<ProbeProtocol> ParseProbeProtocol(std::string_view name);
const char* RuleActionName(RuleAction a);
std::optional<RuleAction> ParseRuleAction(std::string_view name);
const char* AnycastPolicyName(AnycastPolicy p);
std::optional<AnycastPolicy> ParseAnycastPolicy(std::string_view name);

}  // namespace ax
