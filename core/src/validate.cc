// Semantic checks on a parsed World (see validate.h). One Checker walks the
// kinds in order; name lookups go through per-kind indexes built while checking
// for duplicate names. Per-field formats (IPs, durations, enums) were already
// enforced while parsing (model_parse.cc, manifest_fields.cc).
#include "ax/validate.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>

#include "ax/isp_sets.h"
#include "ax/labels.h"
#include "ax/srv.h"

namespace ax {
namespace {

constexpr uint32_t kMaxAnswersLimit = 16;
// An hour: a longer ramp outlasts any incident it is meant to soften.
constexpr uint32_t kMaxSlowStartSeconds = 3600;

const char* KindOf(const Domain&) { return "Domain"; }
const char* KindOf(const Region&) { return "Region"; }
const char* KindOf(const Node&) { return "Node"; }
const char* KindOf(const Rule&) { return "Rule"; }
const char* KindOf(const Canary&) { return "Canary"; }
const char* KindOf(const IspSet&) { return "IspSet"; }
const char* KindOf(const GeoOverride&) { return "GeoOverride"; }

// A name quoted whole (names are bounded by the manifest checks).
std::string QuoteName(std::string_view s) {
  return "\"" + std::string(s) + "\"";
}
// 12.5 rather than std::to_string's 12.500000.
std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%g", v);
  return buf;
}
// "a, b, c": names listed in a message.
template <typename Names>
std::string Join(const Names& names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}
std::string Indexed(std::string_view path, size_t i) {
  return std::string(path) + "[" + std::to_string(i) + "]";
}

// Name -> object for one kind; the first definition wins, later ones are
// reported.
template <typename T>
using NameIndexOf = std::unordered_map<std::string_view, const T*>;

class Checker {
 public:
  explicit Checker(const World& world) : world_(world) {}

  std::vector<ManifestError> Run() {
    domains_ = Index(world_.domains);
    regions_ = Index(world_.regions);
    nodes_ = Index(world_.nodes);
    Index(world_.rules);
    Index(world_.canaries);
    Index(world_.isp_sets);
    for (const SnapshotIspSet& s : ResolveIspSets(world_.isp_sets)) {
      isp_sets_.insert(s.name);
    }
    for (const IspSet& s : world_.isp_sets) CheckIspSet(s);
    for (const Domain& d : world_.domains) CheckDomain(d);
    CheckUniqueFqdns();
    CheckSrvTargets();
    const Region* catch_all = nullptr;
    for (const Region& r : world_.regions) CheckRegion(r, catch_all);
    for (const Node& n : world_.nodes) CheckNode(n);
    for (const Rule& r : world_.rules) CheckRule(r);
    for (const Canary& c : world_.canaries) CheckCanary(c);
    Index(world_.geo_overrides);
    for (const GeoOverride& o : world_.geo_overrides) CheckGeoOverride(o);
    return std::move(errors_);
  }

 private:
  template <typename T>
  void Error(const T& obj, std::string field, std::string message) {
    errors_.push_back({obj.meta.source,
                       std::string(KindOf(obj)) + "/" + obj.meta.name,
                       std::move(field), std::move(message)});
  }

  template <typename T>
  NameIndexOf<T> Index(const std::vector<T>& objects) {
    NameIndexOf<T> index;
    for (const T& obj : objects) {
      auto [it, inserted] = index.emplace(obj.meta.name, &obj);
      if (!inserted) {
        Error(obj, "metadata.name",
              std::string("duplicate ") + KindOf(obj) +
                  " name, first defined at " + it->second->meta.source);
      }
    }
    return index;
  }

  // Reports `name` at `field` of `obj` unless `index` defines it.
  template <typename T, typename U>
  void CheckRef(const T& obj, const std::string& field, const std::string& name,
                const NameIndexOf<U>& index, const char* kind) {
    if (!index.contains(name))
      Error(obj, field,
            std::string(kind) + " " + QuoteName(name) + " is not defined");
  }

  void CheckDomain(const Domain& d) {
    if (d.fqdn != d.zone && !d.fqdn.ends_with("." + d.zone)) {
      Error(d, "spec.fqdn",
            QuoteName(d.fqdn) + " is not inside zone " + QuoteName(d.zone));
    }
    if (d.max_answers == 0 || d.max_answers > kMaxAnswersLimit) {
      Error(d, "spec.maxAnswers",
            "must be 1.." + std::to_string(kMaxAnswersLimit) + ", got " +
                std::to_string(d.max_answers));
    }
    for (const auto& [field, ttl] : {std::pair{"spec.ttl.steady", d.ttl.steady},
                                     {"spec.ttl.failover", d.ttl.failover},
                                     {"spec.ttl.canary", d.ttl.canary}}) {
      if (ttl == 0) Error(d, field, "must be at least 1 second");
    }
    if (d.hysteresis_percent > 100) {
      Error(d, "spec.hysteresisPercent",
            "must be 0..100, got " + std::to_string(d.hysteresis_percent));
    }
    if (d.slow_start_seconds > kMaxSlowStartSeconds) {
      Error(d, "spec.slowStartSeconds",
            "must be 0.." + std::to_string(kMaxSlowStartSeconds) + ", got " +
                std::to_string(d.slow_start_seconds));
    }
    if (!d.fallback.cname.empty() && !d.fallback.addresses.empty()) {
      Error(d, "spec.fallback", "set either cname or addresses, not both");
    }
    for (size_t i = 0; i < d.srv.size(); ++i) {
      const std::string owner = SrvOwnerName(d.srv[i], d.fqdn);
      if (owner.size() > 253) {
        Error(
            d, Indexed("spec.srv", i),
            "SRV name " + QuoteName(owner) + " is longer than 253 characters");
      }
      for (size_t j = 0; j < i; ++j) {
        if (d.srv[j].service == d.srv[i].service &&
            d.srv[j].protocol == d.srv[i].protocol) {
          Error(d, Indexed("spec.srv", i),
                "_" + d.srv[i].service + "._" + d.srv[i].protocol +
                    " is listed twice (spec.srv[" + std::to_string(j) + "])");
        }
      }
    }
    bool selects_any = false;
    for (const Node& n : world_.nodes)
      selects_any =
          selects_any || MatchesLabels(d.node_selector, n.meta.labels);
    if (!selects_any) {
      Error(d,
            d.node_selector.empty() ? "spec" : "spec.nodeSelector.matchLabels",
            "selects no Node");
    }
    CheckAnycast(d);
  }

  // The PoPs must exist, and PoPs that share an address must share all: an
  // answer lists each address once (RFC 2181 §5: an RRset has no duplicate
  // records), which the build makes by keeping one PoP per address set.
  void CheckAnycast(const Domain& d) {
    const DomainAnycast& a = d.anycast;
    if (!a.enabled()) {
      if (a.policy != AnycastPolicy::kDefault || !a.unicast_regions.empty()) {
        Error(d, "spec.anycast.nodeSelector.matchLabels",
              "is required: it selects the anycast PoPs");
      }
      return;
    }
    for (size_t i = 0; i < a.unicast_regions.size(); ++i) {
      CheckRef(d, Indexed("spec.anycast.unicastRegions", i),
               a.unicast_regions[i], regions_, "Region");
    }
    if (a.policy == AnycastPolicy::kFallback && !a.unicast_regions.empty()) {
      Error(d, "spec.anycast.unicastRegions",
            "applies to policy Default only: with Fallback every Region is "
            "answered unicast first");
    }
    std::vector<const Node*> pops;
    for (const Node& n : world_.nodes) {
      if (MatchesLabels(a.node_selector, n.meta.labels)) pops.push_back(&n);
    }
    if (pops.empty()) {
      Error(d, "spec.anycast.nodeSelector.matchLabels", "selects no Node");
    }
    for (size_t i = 0; i < pops.size(); ++i) {
      for (size_t j = 0; j < i; ++j) {
        if (SharesSome(pops[i]->addresses, pops[j]->addresses) &&
            !SameSet(pops[i]->addresses, pops[j]->addresses)) {
          Error(d, "spec.anycast.nodeSelector.matchLabels",
                "PoPs Node/" + pops[j]->meta.name + " and Node/" +
                    pops[i]->meta.name +
                    " share an address but not all: PoPs announcing one "
                    "address must list the same addresses");
        }
      }
    }
  }

  static bool Has(const std::vector<IpAddress>& set, const IpAddress& x) {
    return std::find(set.begin(), set.end(), x) != set.end();
  }
  static bool SharesSome(const std::vector<IpAddress>& a,
                         const std::vector<IpAddress>& b) {
    return std::any_of(a.begin(), a.end(),
                       [&](const IpAddress& x) { return Has(b, x); });
  }
  static bool Within(const std::vector<IpAddress>& a,
                     const std::vector<IpAddress>& b) {
    return std::all_of(a.begin(), a.end(),
                       [&](const IpAddress& x) { return Has(b, x); });
  }
  static bool SameSet(const std::vector<IpAddress>& a,
                      const std::vector<IpAddress>& b) {
    return Within(a, b) && Within(b, a);
  }

  // Two Domains answering for one name would make the answer depend on load
  // order.
  void CheckUniqueFqdns() {
    std::unordered_map<std::string_view, const Domain*> by_fqdn;
    for (const Domain& d : world_.domains) {
      auto [it, inserted] = by_fqdn.emplace(d.fqdn, &d);
      if (!inserted && it->second->meta.name != d.meta.name) {
        Error(d, "spec.fqdn",
              QuoteName(d.fqdn) + " is also served by Domain/" +
                  it->second->meta.name);
      }
    }
  }

  // SRV targets are <node>.<fqdn> (srv.h): each must be a name, and not one
  // another Domain answers for.
  void CheckSrvTargets() {
    std::unordered_map<std::string, const Domain*> by_fqdn;
    for (const Domain& d : world_.domains) by_fqdn.emplace(d.fqdn, &d);
    for (const Domain& d : world_.domains) {
      if (d.srv.empty()) continue;
      const Node* longest = nullptr;
      for (const Node& n : world_.nodes) {
        if (!longest || n.meta.name.size() > longest->meta.name.size()) {
          longest = &n;
        }
        const std::string target = SrvTargetName(n.meta.name, d.fqdn);
        if (auto it = by_fqdn.find(target); it != by_fqdn.end()) {
          Error(d, "spec.srv",
                "SRV target " + QuoteName(target) + " of Node " +
                    QuoteName(n.meta.name) + " is Domain/" +
                    it->second->meta.name + "'s fqdn");
        }
      }
      if (longest && longest->meta.name.size() + 1 + d.fqdn.size() > 253) {
        Error(d, "spec.srv",
              "SRV target " +
                  QuoteName(SrvTargetName(longest->meta.name, d.fqdn)) +
                  " of Node " + QuoteName(longest->meta.name) +
                  " is longer than 253 characters");
      }
    }
  }

  void CheckRegion(const Region& r, const Region*& catch_all) {
    std::unordered_map<std::string_view, size_t> seen;
    for (size_t i = 0; i < r.nodes.size(); ++i) {
      CheckRef(r, Indexed("spec.nodes", i), r.nodes[i], nodes_, "Node");
      if (!seen.emplace(r.nodes[i], i).second) {
        Error(r, Indexed("spec.nodes", i),
              "Node " + QuoteName(r.nodes[i]) + " is listed twice");
      }
    }
    for (size_t i = 0; i < r.fallback_regions.size(); ++i) {
      const std::string field = Indexed("spec.fallbackRegions", i);
      if (r.fallback_regions[i] == r.meta.name) {
        Error(r, field, "a Region cannot fall back to itself");
      } else {
        CheckRef(r, field, r.fallback_regions[i], regions_, "Region");
      }
    }
    CheckIspName(r, "spec.isp", r.isp);
    for (size_t i = 0; i < r.match.isps.size(); ++i) {
      CheckIspName(r, Indexed("spec.match.isps", i), r.match.isps[i]);
    }
    if (r.nodes.empty() && r.fallback_regions.empty()) {
      Error(r, "spec.nodes", "a Region needs nodes or fallbackRegions");
    }
    if (r.match.catch_all) {
      if (catch_all != nullptr) {
        Error(r, "spec.match.default",
              "only one Region may be the default, Region/" +
                  catch_all->meta.name + " already is");
      } else {
        catch_all = &r;
      }
    }
  }

  void CheckNode(const Node& n) {
    CheckIspName(n, "spec.isp", n.isp);
    if (n.addresses.empty())
      Error(n, "spec.addresses", "a Node needs at least one address");
    if (n.weight == 0) {
      Error(n, "spec.weight",
            "must be at least 1 (use adminState Drain or Disabled to stop "
            "traffic)");
    }
    if (n.location && (n.location->lat < -90 || n.location->lat > 90)) {
      Error(n, "spec.location.lat",
            "must be -90..90, got " + Num(n.location->lat));
    }
    if (n.location && (n.location->lon < -180 || n.location->lon > 180)) {
      Error(n, "spec.location.lon",
            "must be -180..180, got " + Num(n.location->lon));
    }
    if (n.capacity.bandwidth_mbps < 0)
      Error(n, "spec.capacity.bandwidthMbps", "must not be negative");
    if (n.capacity.connections < 0)
      Error(n, "spec.capacity.connections", "must not be negative");
    if (!n.health_check) return;
    const HealthCheck& hc = *n.health_check;
    if (hc.port == 0) Error(n, "spec.healthCheck.port", "is required");
    if (hc.failure_threshold == 0)
      Error(n, "spec.healthCheck.failureThreshold", "must be at least 1");
    if (hc.success_threshold == 0)
      Error(n, "spec.healthCheck.successThreshold", "must be at least 1");
    if (hc.interval_ms == 0)
      Error(n, "spec.healthCheck.interval", "must be longer than 0");
    if (hc.timeout_ms == 0)
      Error(n, "spec.healthCheck.timeout", "must be longer than 0");
    if (hc.timeout_ms > hc.interval_ms) {
      Error(n, "spec.healthCheck.timeout",
            "must not exceed the interval (" + std::to_string(hc.interval_ms) +
                "ms), got " + std::to_string(hc.timeout_ms) + "ms");
    }
    const FlapDamping& damping = hc.flap_damping;
    if (damping.enabled && damping.half_life_ms == 0)
      Error(n, "spec.healthCheck.flapDamping.halfLife",
            "must be longer than 0");
    if (damping.enabled && damping.max_suppress_ms < damping.half_life_ms) {
      Error(n, "spec.healthCheck.flapDamping.maxSuppress",
            "must be at least the half-life (" +
                std::to_string(damping.half_life_ms) + "ms), got " +
                std::to_string(damping.max_suppress_ms) + "ms");
    }
  }

  void CheckRule(const Rule& r) {
    CheckRef(r, "spec.domain", r.domain, domains_, "Domain");
    CheckIspName(r, "spec.match.isp", r.isp);
    if (!r.region.empty())
      CheckRef(r, "spec.match.region", r.region, regions_, "Region");
    if (r.node.empty()) {
      Error(r, "spec.node",
            std::string("is required for action ") + RuleActionName(r.action));
    } else {
      CheckRef(r, "spec.node", r.node, nodes_, "Node");
    }
    if (r.action == RuleAction::kWeight && r.weight == 0) {
      Error(r, "spec.weight", "action Weight needs a weight of at least 1");
    }
    if (r.action != RuleAction::kWeight && r.weight != 0) {
      Error(r, "spec.weight",
            std::string("only applies to action Weight, not ") +
                RuleActionName(r.action));
    }
  }

  // An `isp` names a known set (built-in or declared), or is "any" or unset:
  // a typo would otherwise group vantages and match Rules by a name nothing
  // else uses.
  template <typename T>
  void CheckIspName(const T& obj, const std::string& field,
                    const std::string& name) {
    if (name.empty() || name == kAnyIsp || isp_sets_.contains(name)) return;
    Error(obj, field,
          "no ISP set named " + QuoteName(name) + " (known: " +
              Join(isp_sets_) + "; declare an IspSet to add one)");
  }

  void CheckIspSet(const IspSet& s) {
    if (s.meta.name == kAnyIsp) {
      Error(s, "metadata.name",
            "\"any\" means every ISP and cannot name a set");
    }
    if (s.asns.empty() && s.names.empty()) {
      Error(s, "spec", "an IspSet needs asns or names");
    }
    for (size_t i = 0; i < s.asns.size(); ++i) {
      if (s.asns[i] == 0) {
        Error(s, Indexed("spec.asns", i),
              "AS 0 is reserved and never announced (RFC 7607)");
      }
    }
    for (size_t i = 0; i < s.names.size(); ++i) {
      if (s.names[i].empty()) {
        Error(s, Indexed("spec.names", i), "must not be empty");
      }
    }
    if (!s.replace_builtin) return;
    const std::vector<std::string> builtin = BuiltinIspSetNames();
    if (!std::binary_search(builtin.begin(), builtin.end(), s.meta.name)) {
      Error(s, "spec.replaceBuiltin",
            "there is no built-in set " + QuoteName(s.meta.name) +
                " to replace (built-in: " + Join(builtin) + ")");
    }
  }

  void CheckCanary(const Canary& c) {
    CheckRef(c, "spec.domain", c.domain, domains_, "Domain");
    CheckRef(c, "spec.node", c.node, nodes_, "Node");
    for (size_t i = 0; i < c.regions.size(); ++i) {
      CheckRef(c, Indexed("spec.regions", i), c.regions[i], regions_, "Region");
    }
    if (c.steps.empty())
      Error(c, "spec.steps", "a Canary needs at least one step");
    for (size_t i = 0; i < c.steps.size(); ++i) {
      const double percent = c.steps[i].percent;
      const std::string field = Indexed("spec.steps", i) + ".percent";
      if (percent < 0 || percent > 100) {
        Error(c, field, "must be 0..100, got " + Num(percent));
      } else if (i > 0 && percent < c.steps[i - 1].percent) {
        Error(c, field,
              "steps must not decrease, " + Num(percent) + " follows " +
                  Num(c.steps[i - 1].percent));
      }
    }
    CheckCanaryAnalysis(c);
    if (c.status_percent &&
        (*c.status_percent < 0 || *c.status_percent > 100)) {
      Error(c, "status.percent",
            "must be 0..100, got " + Num(*c.status_percent));
    }
  }

  void CheckCanaryAnalysis(const Canary& c) {
    // Prometheus is asked no more often than this: a scrape interval is
    // rarely shorter.
    if (c.analysis.interval_ms < 5000) {
      Error(c, "spec.analysis.interval", "must be at least 5s");
    }
    std::set<std::string> names;
    for (size_t i = 0; i < c.analysis.metrics.size(); ++i) {
      const CanaryMetric& m = c.analysis.metrics[i];
      const std::string at = Indexed("spec.analysis.metrics", i);
      if (!names.insert(m.name).second) {
        Error(c, at + ".name", "\"" + m.name + "\" is used twice");
      }
      // Prometheus is read over plain HTTP (an in-cluster Service); TLS to it
      // is not built in.
      if (!m.prometheus.starts_with("http://")) {
        Error(c, at + ".prometheus",
              "must be an http:// URL, got \"" + m.prometheus + "\"");
      }
      // Without it the canary and its baseline ask the same question.
      if (m.query.find("{{node}}") == std::string::npos) {
        Error(c, at + ".query", "must contain {{node}} (the node's name)");
      }
      if (!m.max && !m.max_over_baseline) {
        Error(c, at, "needs max, maxOverBaseline or both");
      }
    }
    if (const auto& e = c.analysis.error_rate) {
      if (!e->max && !e->max_over_baseline) {
        Error(c, "spec.analysis.errorRate",
              "needs max, maxOverBaseline or both");
      }
      for (const auto& [key, limit] :
           {std::pair{"max", e->max},
            std::pair{"maxOverBaseline", e->max_over_baseline}}) {
        // A ratio, as the nodes report it: 0.005 is 0.5%.
        if (limit && !(*limit >= 0 && *limit <= 1)) {
          Error(c, std::string("spec.analysis.errorRate.") + key,
                "must be a ratio from 0 to 1 (0.005 is 0.5%), got " +
                    Num(*limit));
        }
      }
    }
  }

  void CheckGeoOverride(const GeoOverride& o) {
    CheckRef(o, "spec.region", o.region, regions_, "Region");
    if (o.cidrs.empty()) Error(o, "spec.cidrs", "a GeoOverride needs a CIDR");
    for (size_t i = 0; i < o.cidrs.size(); ++i) {
      // A /0 would move every client: that is a Region's `default`, not a
      // correction of the database.
      if (o.cidrs[i].length == 0) {
        Error(o, Indexed("spec.cidrs", i),
              "a /0 covers every client; use a catch-all Region instead");
      }
    }
    if (!o.evidence) return;
    // Evidence is history: the nodes it names may be gone since.
    const GeoOverrideEvidence& e = *o.evidence;
    if (e.best_ms < 0 || e.db_ms < 0) {
      Error(o, "spec.evidence", "medians must not be negative");
    }
    if (e.from > e.to) {
      Error(o, "spec.evidence.from", "is after spec.evidence.to");
    }
  }

  const World& world_;
  NameIndexOf<Domain> domains_;
  NameIndexOf<Region> regions_;
  NameIndexOf<Node> nodes_;
  std::set<std::string, std::less<>> isp_sets_;  // every known set's name
  std::vector<ManifestError> errors_;
};

}  // namespace

std::vector<ManifestError> Validate(const World& world) {
  return Checker(world).Run();
}

}  // namespace ax
