// BuildSnapshot: for every (domain, region) walk the fallback chain, apply
// manual rules and the canary, score and rank the candidates, hold the
// incumbent primary against small improvements (hysteresis), mark
// health-driven changes for the failover TTL, start the ramps of nodes that
// just turned Up (slow start) and spill a share of an overloaded region's
// clients to its next fallback region. Priority: manual Rule > Canary >
// automatic.
#include "ax/build_snapshot.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iterator>
#include <map>
#include <optional>
#include <unordered_map>

#include "ax/hash.h"
#include "ax/isp_sets.h"
#include "ax/labels.h"
#include "ax/previous_snapshot.h"
#include "ax/score.h"
#include "ax/snapshot_json.h"
#include "ax/vantage.h"
#include "snapshot_doc.h"

namespace ax {
namespace {

template <typename T>
std::vector<const T*> SortedByName(const std::vector<T>& items) {
  std::vector<const T*> out;
  out.reserve(items.size());
  for (const T& item : items) out.push_back(&item);
  std::sort(out.begin(), out.end(),
            [](const T* a, const T* b) { return a->meta.name < b->meta.name; });
  return out;
}

// Measurements are taken at the precision the document keeps before anything
// is scored from them (Measured): scores built from the published value and
// from the raw one would otherwise differ, and a plan holding the published
// value (plan/measurement_hold.h) would still publish once. -1 stays -1.
using snapshot_doc::Quantise;
double Measured(double value, int decimals) {
  return Quantise(value, decimals);
}

SnapshotNode MakeNode(const Node& node, const StatusMap& status,
                      const PreviousSnapshot& prev, int64_t now_ms) {
  SnapshotNode n;
  n.name = node.meta.name;
  n.addresses = node.addresses;
  n.area = node.area;
  n.isp = node.isp;
  n.has_location = node.location.has_value();
  if (node.location) n.location = *node.location;
  n.weight = node.weight;
  n.admin_state = node.AdminStateAt(now_ms);
  n.redirect_url = node.redirect_url;
  n.health = NodeHealthOf(node, status);
  if (auto it = status.find(node.meta.name); it != status.end()) {
    n.latency_ms = Measured(it->second.latency_ms.value_or(-1),
                            snapshot_doc::kLatencyDecimals);
    n.utilisation = Measured(Utilisation(node.capacity, it->second.load),
                             snapshot_doc::kScoreDecimals);
  }
  n.up_since_ms = prev.UpSince(n.health, prev.NodeUpState(n.name), now_ms);
  return n;
}

// The mean utilisation of a route's candidates that report load; -1: none.
double MeanUtilisation(const std::vector<NodeFacts>& facts,
                       const Route& route) {
  double sum = 0;
  int known = 0;
  for (const Candidate& c : route.candidates) {
    if (facts[c.node].utilisation < 0) continue;
    sum += facts[c.node].utilisation;
    ++known;
  }
  return known > 0 ? sum / known : -1;
}

// The sets some region matches on, in name order: the others would only make
// every ax-dns parse and hash what no query reads.
std::vector<SnapshotIspSet> IspSetsNamedBy(
    const std::vector<SnapshotRegion>& regions,
    std::vector<SnapshotIspSet> known) {
  std::erase_if(known, [&](const SnapshotIspSet& set) {
    return std::none_of(
        regions.begin(), regions.end(), [&](const SnapshotRegion& r) {
          return std::find(r.match.isps.begin(), r.match.isps.end(),
                           set.name) != r.match.isps.end();
        });
  });
  return known;
}

bool IsRankingStrategy(Strategy s) {
  return s == Strategy::kRegionPriority || s == Strategy::kLatency ||
         s == Strategy::kLeastConnections;
}

// Stable content hash of a route, to share identical routes between domains.
uint64_t HashRoute(const Route& r) {
  uint64_t h = Fnv1a64(r.via, static_cast<uint64_t>(r.source) + 1);
  auto mix = [&h](uint64_t v) { h = Mix64(h ^ v); };
  auto mix_double = [&mix](double d) {
    uint64_t bits = 0;
    std::memcpy(&bits, &d, sizeof bits);
    mix(bits);
  };
  for (const Candidate& c : r.candidates) {
    mix(c.node);
    mix_double(c.weight);
    mix_double(c.score.Total());
    mix(static_cast<uint64_t>(c.ramp_start_ms));
  }
  for (const std::string& rule : r.rules) h = Fnv1a64(rule, h);
  mix(r.canary);
  mix(r.hysteresis_held);
  mix(static_cast<uint64_t>(r.failover_until_ms));
  mix_double(r.spill_share);
  mix(r.spill_route);
  return h;
}

// Best score first; equal scores keep their declared order.
void RankByScore(Route& route) {
  std::stable_sort(route.candidates.begin(), route.candidates.end(),
                   [](const Candidate& a, const Candidate& b) {
                     return a.score.Total() > b.score.Total();
                   });
}

// What every route of one build shares.
struct BuildContext {
  const Snapshot& snap;
  const BuildOptions& opts;
  const PreviousSnapshot& prev;
  std::unordered_map<std::string, uint32_t> node_index;
  std::unordered_map<std::string, const Region*> regions;
  // By node index: as the global quorum sees the nodes, and as each vantage
  // group does (by group index; empty for a group without vantages).
  std::vector<NodeFacts> global_facts;
  std::vector<std::vector<NodeFacts>> group_facts;
};

// What every route of one domain shares.
struct DomainContext {
  const Domain& domain;
  std::vector<bool>
      selected;  // by node index: the domain's nodeSelector matches
  // By node index: an anycast PoP of the domain (its anycast.nodeSelector
  // matches). PoPs never serve on the unicast chain.
  std::vector<bool> anycast;
  std::vector<const Rule*>
      rules;  // active (unexpired) rules of this domain, by name
  uint32_t canary = kNoIndex;  // index into snap.canaries
  const Canary* canary_spec = nullptr;
};

class RoutePlanner {
 public:
  RoutePlanner(const BuildContext& b, const DomainContext& d,
               const Region* region, uint32_t vantage_group)
      : b_(b),
        d_(d),
        region_(region),
        facts_(vantage_group != kNoIndex &&
                       !b.group_facts[vantage_group].empty()
                   ? b.group_facts[vantage_group]
                   : b.global_facts) {}

  // The region's route and, while its nodes are past the load knee, the route
  // its spilled clients take (the caller interns it and links the two).
  struct Planned {
    Route route;
    std::optional<Route> spill;
  };

  Planned Plan() const {
    Planned out{PlanRoute(), std::nullopt};
    out.spill = PlanSpill(out.route);
    return out;
  }

 private:
  // Spill shares move in whole percent: finer steps would publish a new table
  // for every wobble of reported load.
  static constexpr double kSpillShareSteps = 100;

  Route PlanRoute() const {
    const bool canary_applies = CanaryCovers();
    Route route = Collect(canary_applies);
    if (canary_applies) {
      if (HasPin(route) || route.source == RouteSource::kDomainFallback ||
          route.source == RouteSource::kFailOpen) {
        // A manual pin outranks the canary; and when the canary node is the
        // only one that can serve, everybody gets it rather than a fallback.
        // Plan it as a normal node.
        route = Collect(false);
      } else {
        route.canary = d_.canary;
      }
    }
    const Route* before = b_.prev.FindRoute(d_.domain.meta.name,
                                            region_ ? region_->meta.name : "");
    RankByScore(route);
    ApplyHysteresis(route, before);
    MarkFailover(route, before);
    return route;
  }

  // Spill-over: a Region route (not pinned) whose nodes are past the load
  // knee on average sends a share of its clients (set in `route`) to its
  // first fallback region that can serve and is not past the knee itself.
  std::optional<Route> PlanSpill(Route& route) const {
    if (!region_ || route.source != RouteSource::kRegion || HasPin(route))
      return std::nullopt;
    const double u = MeanUtilisation(facts_, route);
    // The share of the region's load above the knee: moving that share of
    // its clients brings it back to the knee, if the clients are alike.
    const double share =
        std::round((u - kLoadKnee) / u * kSpillShareSteps) / kSpillShareSteps;
    if (u <= kLoadKnee || share <= 0) return std::nullopt;
    Route spill;
    std::vector<Member> members;
    if (!CollectFallbackRegions(false, spill, members)) return std::nullopt;
    spill = Finish(std::move(spill), members);
    if (MeanUtilisation(facts_, spill) > kLoadKnee) return std::nullopt;
    RankByScore(spill);
    route.spill_share = share;
    return spill;
  }

  struct Member {
    uint32_t node;
    size_t position;
  };

  bool RuleMatches(const Rule& rule) const {
    if (!rule.region.empty() && (!region_ || rule.region != region_->meta.name))
      return false;
    if (!rule.isp.empty() && (!region_ || rule.isp != region_->isp))
      return false;
    return true;
  }

  bool CanaryCovers() const {
    const Canary* spec = d_.canary_spec;
    // The canary node must serve as this region's vantages see it too.
    if (!spec || !Usable(b_.snap.canaries[d_.canary].node)) return false;
    if (spec->regions.empty()) return true;
    return region_ && std::find(spec->regions.begin(), spec->regions.end(),
                                region_->meta.name) != spec->regions.end();
  }

  bool HasPin(const Route& route) const {
    return std::any_of(d_.rules.begin(), d_.rules.end(), [&](const Rule* r) {
      return r->action == RuleAction::kPin &&
             std::find(route.rules.begin(), route.rules.end(), r->meta.name) !=
                 route.rules.end();
    });
  }

  static void NoteRule(Route& route, const Rule& rule) {
    if (std::find(route.rules.begin(), route.rules.end(), rule.meta.name) ==
        route.rules.end()) {
      route.rules.push_back(rule.meta.name);
    }
  }

  bool Usable(uint32_t n) const {
    return d_.selected[n] && !d_.anycast[n] &&
           Eligible(facts_[n], d_.domain.answer_unknown);
  }

  // Default policy: anycast answers every client but those of the unicast
  // regions (and their fallbacks run the unicast chain).
  bool AnycastFirst() const {
    const DomainAnycast& a = d_.domain.anycast;
    if (!a.enabled() || a.policy != AnycastPolicy::kDefault) return false;
    return !region_ ||
           std::find(a.unicast_regions.begin(), a.unicast_regions.end(),
                     region_->meta.name) == a.unicast_regions.end();
  }

  // The usable PoPs, one per address set: PoPs announcing the same addresses
  // are one answer (validate.cc makes PoPs share all addresses or none), so
  // a PoP down leaves its addresses in while another announcing them serves.
  bool CollectAnycast(RouteSource source, Route& route,
                      std::vector<Member>& members) const {
    for (uint32_t n = 0; n < b_.snap.nodes.size(); ++n) {
      if (!d_.anycast[n] || !Eligible(facts_[n], d_.domain.answer_unknown) ||
          Excluded(n, route)) {
        continue;
      }
      const auto& addresses = b_.snap.nodes[n].addresses;
      if (std::none_of(members.begin(), members.end(), [&](const Member& m) {
            return b_.snap.nodes[m.node].addresses == addresses;
          })) {
        members.push_back({n, 0});
      }
    }
    if (members.empty()) return false;
    route.source = source;
    return true;
  }

  bool Excluded(uint32_t n, Route& route) const {
    for (const Rule* rule : d_.rules) {
      if (rule->action == RuleAction::kExclude && RuleMatches(*rule) &&
          b_.node_index.at(rule->node) == n) {
        NoteRule(route, *rule);
        return true;
      }
    }
    return false;
  }

  // Appends the usable nodes among `names` (in order) that are not excluded.
  void AddMembers(const std::vector<std::string>& names, bool skip_canary,
                  Route& route, std::vector<Member>& out) const {
    for (const std::string& name : names) {
      auto it = b_.node_index.find(name);
      if (it == b_.node_index.end() || !Usable(it->second)) continue;
      const uint32_t n = it->second;
      if (skip_canary && n == b_.snap.canaries[d_.canary].node) continue;
      if (Excluded(n, route)) continue;
      if (std::none_of(out.begin(), out.end(),
                       [n](const Member& m) { return m.node == n; })) {
        out.push_back({n, out.size()});
      }
    }
  }

  // The region's fallbackRegions in order: the first with a usable node fills
  // `members` and names itself in `route`.
  bool CollectFallbackRegions(bool skip_canary, Route& route,
                              std::vector<Member>& members) const {
    for (const std::string& name : region_->fallback_regions) {
      auto fb = b_.regions.find(name);
      if (fb == b_.regions.end()) continue;
      AddMembers(fb->second->nodes, skip_canary, route, members);
      if (!members.empty()) {
        route.source = RouteSource::kFallbackRegion;
        route.via = name;
        return true;
      }
    }
    return false;
  }

  // The last resort's first half: every usable node of the region's own ISP,
  // so that a carrier's clients stay on its network while any node there
  // serves (cross-carrier links are where they time out).
  bool CollectSameIsp(bool skip_canary, Route& route,
                      std::vector<Member>& members) const {
    if (!region_ || region_->isp.empty() || region_->isp == kAnyIsp)
      return false;
    std::vector<std::string> same;
    for (const SnapshotNode& n : b_.snap.nodes) {
      if (n.isp == region_->isp) same.push_back(n.name);
    }
    AddMembers(same, skip_canary, route, members);
    if (members.empty()) return false;
    route.source = RouteSource::kIspHealthy;
    return true;
  }

  // The last resort's second half: every usable node the domain selects.
  bool CollectAllHealthy(bool skip_canary, Route& route,
                         std::vector<Member>& members) const {
    std::vector<std::string> all;
    for (const SnapshotNode& n : b_.snap.nodes) all.push_back(n.name);
    AddMembers(all, skip_canary, route, members);
    if (members.empty()) return false;
    route.source = RouteSource::kAllHealthy;
    return true;
  }

  // The fallback chain: pins, anycast (policy Default, outside the unicast
  // regions), region, fallbackRegions, healthy nodes of the region's ISP, all
  // healthy, anycast (policy Fallback), domain fallback, fail-open. The first
  // step with a usable node wins.
  Route Collect(bool skip_canary) const {
    Route route;
    std::vector<Member> members;
    for (const Rule* rule : d_.rules) {
      if (rule->action != RuleAction::kPin || !RuleMatches(*rule)) continue;
      const uint32_t n = b_.node_index.at(rule->node);
      // A pin to a node that cannot serve is not honoured: never a dead answer.
      if (!Usable(n)) continue;
      NoteRule(route, *rule);
      members.push_back({n, members.size()});
    }
    if (!members.empty()) return Finish(std::move(route), members);
    if (AnycastFirst() &&
        CollectAnycast(RouteSource::kAnycast, route, members)) {
      return Finish(std::move(route), members);
    }

    if (region_) {
      AddMembers(region_->nodes, skip_canary, route, members);
      if (!members.empty()) return Finish(std::move(route), members);
      if (CollectFallbackRegions(skip_canary, route, members))
        return Finish(std::move(route), members);
    }
    if (CollectSameIsp(skip_canary, route, members) ||
        CollectAllHealthy(skip_canary, route, members)) {
      for (Member& m : members)
        m.position = 0;  // no declared order among these nodes
      return Finish(std::move(route), members);
    }
    if (d_.domain.anycast.policy == AnycastPolicy::kFallback &&
        d_.domain.anycast.enabled() &&
        CollectAnycast(RouteSource::kAnycastFallback, route, members)) {
      return Finish(std::move(route), members);
    }
    if (!d_.domain.fallback.empty()) {
      route.source = RouteSource::kDomainFallback;
      return route;
    }
    // Fail open: nothing is known healthy and there is nowhere else to send
    // clients; unverified nodes beat no answer (never no answer). Only disabled
    // nodes stay out.
    route.source = RouteSource::kFailOpen;
    for (uint32_t n = 0; n < b_.snap.nodes.size(); ++n) {
      if (d_.selected[n] && !d_.anycast[n] &&
          b_.snap.nodes[n].admin_state != AdminState::kDisabled) {
        members.push_back({n, 0});
      }
    }
    return Finish(std::move(route), members);
  }

  Route Finish(Route route, const std::vector<Member>& members) const {
    std::vector<uint32_t> ids;
    ids.reserve(members.size());
    for (const Member& m : members) ids.push_back(m.node);
    const RouteLatency latency = MeasureRouteLatency(facts_, ids);
    for (const Member& m : members) {
      Candidate c;
      c.node = m.node;
      c.score =
          ComputeScore(d_.domain.strategy, facts_[m.node], m.position, latency);
      c.weight = WeightOf(m.node, route) * c.score.health * c.score.load;
      c.ramp_start_ms = RampStart(facts_[m.node]);
      route.candidates.push_back(c);
    }
    return route;
  }

  // Slow start: the node's ramp began when it turned Up as this route's
  // vantages see it, and runs for the domain's window (decide.h applies it).
  int64_t RampStart(const NodeFacts& node) const {
    const int64_t window = int64_t{d_.domain.slow_start_seconds} * 1000;
    if (window == 0 || node.up_since_ms == 0 ||
        b_.opts.now_ms - node.up_since_ms >= window) {
      return 0;
    }
    return node.up_since_ms;
  }

  double WeightOf(uint32_t n, Route& route) const {
    for (const Rule* rule : d_.rules) {
      if (rule->action == RuleAction::kWeight && RuleMatches(*rule) &&
          b_.node_index.at(rule->node) == n) {
        NoteRule(route, *rule);
        return rule->weight;
      }
    }
    return b_.snap.nodes[n].weight;
  }

  // The current primary stays unless a challenger is better by more than the
  // domain's hysteresis percent, so that small score changes do not move
  // traffic back and forth.
  void ApplyHysteresis(Route& route, const Route* before) const {
    if (!before || before->candidates.empty() || route.candidates.size() < 2)
      return;
    if (!IsRankingStrategy(d_.domain.strategy) ||
        route.source == RouteSource::kFailOpen)
      return;
    const std::string& incumbent =
        b_.prev.NodeName(before->candidates.front().node);
    auto it = std::find_if(route.candidates.begin(), route.candidates.end(),
                           [&](const Candidate& c) {
                             return b_.snap.nodes[c.node].name == incumbent;
                           });
    if (it == route.candidates.begin() || it == route.candidates.end()) return;
    const double threshold =
        it->score.Total() * (1 + d_.domain.hysteresis_percent / 100.0);
    if (route.candidates.front().score.Total() > threshold) return;
    std::rotate(route.candidates.begin(), it, it + 1);
    route.hysteresis_held = true;
  }

  // A change of the candidate set caused by a health change opens the failover
  // window; otherwise an open window carries over until it ends.
  void MarkFailover(Route& route, const Route* before) const {
    if (!before) return;
    std::vector<std::string> now_names, old_names, changed;
    for (const Candidate& c : route.candidates)
      now_names.push_back(b_.snap.nodes[c.node].name);
    for (const Candidate& c : before->candidates)
      old_names.push_back(b_.prev.NodeName(c.node));
    std::sort(now_names.begin(), now_names.end());
    std::sort(old_names.begin(), old_names.end());
    std::set_symmetric_difference(now_names.begin(), now_names.end(),
                                  old_names.begin(), old_names.end(),
                                  std::back_inserter(changed));
    const std::string region = region_ ? region_->meta.name : "";
    const bool health_driven =
        std::any_of(changed.begin(), changed.end(), [&](const auto& name) {
          auto it = b_.node_index.find(name);
          const std::optional<Health> was = b_.prev.HealthSeenFor(region, name);
          return it == b_.node_index.end() || !was ||
                 *was != facts_[it->second].health;
        });
    if (health_driven) {
      route.failover_until_ms = b_.opts.now_ms + b_.opts.failover_window_ms;
    } else if (before->failover_until_ms > b_.opts.now_ms) {
      route.failover_until_ms = before->failover_until_ms;
    }
  }

  const BuildContext& b_;
  const DomainContext& d_;
  const Region* region_;
  const std::vector<NodeFacts>& facts_;  // as this region's vantages see them
};

DomainContext MakeDomainContext(const Domain& domain, const World& world,
                                const Snapshot& snap, const BuildContext& b,
                                const std::vector<const Canary*>& canaries) {
  DomainContext d{domain};
  d.selected.resize(snap.nodes.size());
  d.anycast.resize(snap.nodes.size());
  for (const Node& node : world.nodes) {
    const uint32_t n = b.node_index.at(node.meta.name);
    d.selected[n] = MatchesLabels(domain.node_selector, node.meta.labels);
    d.anycast[n] =
        domain.anycast.enabled() &&
        MatchesLabels(domain.anycast.node_selector, node.meta.labels);
  }
  for (const Rule* rule : SortedByName(world.rules)) {
    if (rule->domain == domain.meta.name && !rule->ExpiredAt(b.opts.now_ms))
      d.rules.push_back(rule);
  }
  for (uint32_t i = 0; i < canaries.size(); ++i) {
    const SnapshotCanary& c = snap.canaries[i];
    if (c.domain == domain.meta.name && d.selected[c.node] &&
        Eligible(b.global_facts[c.node], domain.answer_unknown)) {
      d.canary = i;
      d.canary_spec = canaries[i];
      break;
    }
  }
  return d;
}

// Whether any vantage reported as a member of the group: a group nobody
// belongs to is no group (its regions use the global verdicts, as before
// vantages had places); one whose members all went stale or were cut off is
// a group without vantages, which the snapshot shows.
bool HasMembers(const QuorumResult& group) {
  return !group.nodes.empty() || !group.stale_vantages.empty() ||
         !group.cut_off_vantages.empty();
}

// The snapshot's vantage groups (by name) with what each saw of the nodes,
// each region's group index, and the facts each group's regions plan with.
void AddVantageGroups(const std::vector<const Region*>& regions,
                      const GroupQuorums& groups, Snapshot& snap,
                      BuildContext& b) {
  // Per region: the name of its group, when some vantage is a member.
  std::vector<std::optional<std::string>> group_of(regions.size());
  std::map<std::string, uint32_t> index;
  for (size_t r = 0; r < regions.size(); ++r) {
    const std::optional<VantageGroup> group = VantageGroupOf(*regions[r]);
    if (!group) continue;
    auto it = groups.find(group->name);
    if (it != groups.end() && HasMembers(it->second)) {
      group_of[r] = group->name;
      index.emplace(group->name, 0);
    }
  }
  for (auto& [name, i] : index) {
    i = static_cast<uint32_t>(snap.vantage_groups.size());
    const QuorumResult& quorum = groups.at(name);
    SnapshotVantageGroup out{
        name, static_cast<uint32_t>(CountedVantages(quorum).size()), {}};
    // Ramps start where this group saw the node turn Up; a node the group
    // had not seen before ramps as the global view does.
    std::vector<NodeFacts> facts;  // stays empty without vantages
    if (out.vantages > 0) facts = b.global_facts;
    for (uint32_t n = 0; n < snap.nodes.size(); ++n) {
      auto v = quorum.nodes.find(snap.nodes[n].name);
      if (v == quorum.nodes.end()) continue;
      const NodeVerdict& verdict = v->second;
      const auto before = b.prev.GroupUpState(name, snap.nodes[n].name);
      const int64_t up_since =
          before ? b.prev.UpSince(verdict.health, before, b.opts.now_ms)
          : verdict.health == Health::kUp ? snap.nodes[n].up_since_ms
                                          : 0;
      out.nodes.push_back({n, verdict.health,
                           Measured(verdict.latency_ms.value_or(-1),
                                    snapshot_doc::kLatencyDecimals),
                           verdict.up_votes, verdict.down_votes, up_since});
      // Unknown (not probed yet from here): the global view stands.
      if (!facts.empty() && verdict.health != Health::kUnknown) {
        facts[n].health = verdict.health;
        facts[n].latency_ms = out.nodes.back().latency_ms;
        facts[n].up_since_ms = up_since;
      }
    }
    snap.vantage_groups.push_back(std::move(out));
    b.group_facts.push_back(std::move(facts));
  }
  for (size_t r = 0; r < regions.size(); ++r) {
    if (group_of[r]) snap.regions[r].vantage_group = index.at(*group_of[r]);
  }
}

// Appends `route` unless an identical one exists; returns its index.
uint32_t InternRoute(
    Route route, Snapshot& snap,
    std::unordered_map<uint64_t, std::vector<uint32_t>>& seen) {
  auto& bucket = seen[HashRoute(route)];
  for (uint32_t i : bucket) {
    if (snap.routes[i] == route) return i;
  }
  snap.routes.push_back(std::move(route));
  bucket.push_back(static_cast<uint32_t>(snap.routes.size() - 1));
  return bucket.back();
}

// The GeoOverrides in force at `now_ms`, by name (regions are in `snap`).
void AddGeoOverrides(const World& world, int64_t now_ms, Snapshot& snap) {
  for (const GeoOverride* o : SortedByName(world.geo_overrides)) {
    if (!o->AppliesAt(now_ms)) continue;
    const auto region = std::find_if(
        snap.regions.begin(), snap.regions.end(),
        [&](const SnapshotRegion& r) { return r.name == o->region; });
    if (region == snap.regions.end()) continue;
    snap.geo_overrides.push_back(
        {.name = o->meta.name,
         .cidrs = o->cidrs,
         .region = static_cast<uint32_t>(region - snap.regions.begin()),
         .reason = o->reason,
         .expires_at_ms = o->expires_at ? *o->expires_at * 1000 : 0,
         .has_evidence = o->evidence.has_value(),
         .evidence = o->evidence.value_or(GeoOverrideEvidence{})});
  }
}

}  // namespace

Health NodeHealthOf(const Node& node, const StatusMap& status) {
  // Nothing probes this node: it is as healthy as its admin state says.
  if (!node.health_check) return Health::kUp;
  auto it = status.find(node.meta.name);
  return it == status.end() ? Health::kUnknown : it->second.health;
}

Snapshot BuildSnapshot(const World& world, const StatusMap& status,
                       const Snapshot* previous, const BuildOptions& options,
                       const GroupQuorums& groups) {
  Snapshot snap;
  // Versions only go up, whatever the caller asks: readers keep the newest.
  snap.version = previous ? std::max(options.version, previous->version + 1)
                          : options.version;
  snap.generated_at_ms = options.now_ms;
  const PreviousSnapshot prev(previous);
  BuildContext b{snap, options, prev, {}, {}, {}, {}};

  for (const Node* node : SortedByName(world.nodes)) {
    b.node_index[node->meta.name] = static_cast<uint32_t>(snap.nodes.size());
    snap.nodes.push_back(MakeNode(*node, status, prev, options.now_ms));
    b.global_facts.push_back(FactsOf(snap.nodes.back()));
  }
  const std::vector<const Region*> regions = SortedByName(world.regions);
  for (const Region* region : regions) {
    b.regions[region->meta.name] = region;
    snap.regions.push_back({region->meta.name, region->area, region->isp,
                            region->match, region->fallback_regions});
  }
  AddVantageGroups(regions, groups, snap, b);
  snap.isp_sets = IspSetsNamedBy(snap.regions, ResolveIspSets(world.isp_sets));
  AddGeoOverrides(world, options.now_ms, snap);
  std::vector<const Canary*> canaries;
  for (const Canary* canary : SortedByName(world.canaries)) {
    const double percent = std::clamp(canary->EffectivePercent(), 0.0, 100.0);
    auto node = b.node_index.find(canary->node);
    // A canary at 0% (not started, rolled back) stays in: its node is still
    // held out of its Regions' members and answered to nobody, where leaving
    // it out would answer the node as a plain member.
    if (node == b.node_index.end()) continue;
    snap.canaries.push_back(
        {canary->meta.name, canary->domain, node->second, percent});
    canaries.push_back(canary);
  }
  IndexSnapshot(snap);

  std::unordered_map<uint64_t, std::vector<uint32_t>> seen;
  for (const Domain* domain : SortedByName(world.domains)) {
    const DomainContext d =
        MakeDomainContext(*domain, world, snap, b, canaries);
    SnapshotDomain out;
    out.name = domain->meta.name;
    out.fqdn = domain->fqdn;
    out.zone = domain->zone;
    out.strategy = domain->strategy;
    out.max_answers = domain->max_answers;
    out.ttl = domain->ttl;
    out.hysteresis_percent = domain->hysteresis_percent;
    out.slow_start_ms = int64_t{domain->slow_start_seconds} * 1000;
    out.fallback = domain->fallback;
    out.grpc_service_config = domain->grpc_service_config;
    out.srv = domain->srv;
    for (size_t r = 0; r < regions.size(); ++r) {
      const RoutePlanner planner(b, d, regions[r],
                                 snap.regions[r].vantage_group);
      RoutePlanner::Planned planned = planner.Plan();
      if (planned.spill) {
        planned.route.spill_route =
            InternRoute(std::move(*planned.spill), snap, seen);
      }
      out.routes.push_back(InternRoute(std::move(planned.route), snap, seen));
    }
    out.routes.push_back(InternRoute(
        RoutePlanner(b, d, nullptr, kNoIndex).Plan().route, snap, seen));
    snap.domains.push_back(std::move(out));
  }
  QuantiseSnapshot(snap);
  snap.content_hash = ComputeContentHash(snap);
  return snap;
}

}  // namespace ax
