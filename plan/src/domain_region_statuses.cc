// PlanDomainStatuses and PlanRegionStatuses (statuses.h): whether clients get
// good answers. A Domain is judged on the route table ax-dns serves after this
// plan (its routes' candidates), a Region on the nodes as believed now.
#include <unordered_map>

#include "ax/score.h"
#include "status_common.h"

namespace ax::controller {
namespace {

using nlohmann::json;
using status::Ready;

bool Answers(RouteSource source) {
  return source == RouteSource::kRegion ||
         source == RouteSource::kFallbackRegion ||
         source == RouteSource::kIspHealthy ||
         source == RouteSource::kAllHealthy;
}

// Ready from the domain's routes: an Up candidate in some route, else the
// domain's fallback, else only fail-open answers.
Condition DomainReady(const Snapshot& s, const SnapshotDomain& d) {
  size_t healthy = 0;
  for (uint32_t route : d.routes) {
    const Route& r = s.routes[route];
    if (!Answers(r.source)) continue;
    for (const Candidate& c : r.candidates) {
      if (s.nodes[c.node].health == Health::kUp) {
        ++healthy;
        break;
      }
    }
  }
  const std::string classes = std::to_string(d.routes.size());
  if (healthy > 0) {
    return Ready(ConditionStatus::kTrue, "NodesHealthy",
                 "an Up node answers " + std::to_string(healthy) + " of " +
                     classes + " client classes (regions and unclassified)");
  }
  if (!d.fallback.empty()) {
    return Ready(
        ConditionStatus::kTrue, "DomainFallback",
        "no Up node: clients get the domain's fallback " +
            (d.fallback.cname.empty()
                 ? std::to_string(d.fallback.addresses.size()) + " addresses"
                 : "CNAME " + d.fallback.cname));
  }
  return Ready(ConditionStatus::kFalse, "NoHealthyNode",
               "no Up node and no fallback: clients get unverified nodes "
               "(fail-open)");
}

Condition Published(const RouteTableDecision& d) {
  switch (d.outcome) {
    case PublishOutcome::kPublished:
    case PublishOutcome::kUnchanged:
      return {"Published", ConditionStatus::kTrue, "InRouteTable",
              "the route table ax-dns serves has this Domain as specified"};
    case PublishOutcome::kRejected:
    case PublishOutcome::kRolledBack:
    case PublishOutcome::kHeld:
      break;
  }
  return {"Published", ConditionStatus::kFalse, d.reason, d.message};
}

}  // namespace

void PlanDomainStatuses(const StatusInputs& in, StatusOutput& out) {
  const Snapshot* served = in.route_table.in_force;
  std::unordered_map<std::string_view, const SnapshotDomain*> domains;
  if (served) {
    for (const SnapshotDomain& d : served->domains) domains[d.name] = &d;
  }
  const Condition published = Published(in.route_table);
  status::ForEachObject(in.observed.domains, [&](const json& object,
                                                 const std::string& kind_name) {
    if (auto bad = in.gathered.invalid.find(kind_name);
        bad != in.gathered.invalid.end()) {
      status::PlanInvalid(object, bad->second, "ready", in, out);
      return;
    }
    auto it = domains.find(RefOf(object).name);
    const Condition ready =
        it == domains.end()
            ? Ready(ConditionStatus::kFalse, "NotPublished",
                    "not in the route table ax-dns serves (see Published)")
            : DomainReady(*served, *it->second);
    json status = {{"ready", ready.status == ConditionStatus::kTrue}};
    status::Emit(object,
                 status::WithConditions(std::move(status), object,
                                        {ready, published}, in.observed.now_ms),
                 out);
  });
}

SnapshotIndex::SnapshotIndex(const Snapshot& snapshot) : snapshot_(snapshot) {
  for (uint32_t i = 0; i < snapshot.nodes.size(); ++i)
    nodes_[snapshot.nodes[i].name] = i;
  for (const SnapshotRegion& r : snapshot.regions)
    groups_[r.name] = ax::GroupOf(snapshot, r);
}

const SnapshotVantageGroup* SnapshotIndex::GroupOf(
    std::string_view region) const {
  auto it = groups_.find(region);
  return it == groups_.end() ? nullptr : it->second;
}

std::optional<NodeFacts> SnapshotIndex::FactsFor(std::string_view region,
                                                 std::string_view node) const {
  auto it = nodes_.find(node);
  if (it == nodes_.end()) return std::nullopt;
  return FactsSeenBy(snapshot_, it->second, GroupOf(region));
}

size_t HealthyNodeCount(const Region& region, const SnapshotIndex& index) {
  size_t healthy = 0;
  for (const std::string& name : region.nodes) {
    const std::optional<NodeFacts> n = index.FactsFor(region.meta.name, name);
    healthy +=
        n && n->health == Health::kUp && n->admin_state == AdminState::kActive;
  }
  return healthy;
}

namespace {

// Measured: whose verdicts the Region's answers use, and, when its vantage
// group has no fresh trusted vantage, that it fell back to the global ones
// (the AxVantageGroupWithoutVantages alert's case).
Condition Measured(const SnapshotVantageGroup* group) {
  if (!group) {
    return {"Measured", ConditionStatus::kTrue, "GlobalVerdicts",
            "no vantage is placed for its clients: the global quorum's "
            "verdicts"};
  }
  if (group->vantages == 0) {
    return {"Measured", ConditionStatus::kFalse, "UsingGlobal",
            "vantage group " + group->name +
                " has no fresh, trusted vantage: its clients are answered by "
                "the global verdicts"};
  }
  return {"Measured", ConditionStatus::kTrue, "VantageGroup",
          "measured by " + std::to_string(group->vantages) +
              " vantages of group " + group->name};
}

}  // namespace

void PlanRegionStatuses(const StatusInputs& in, StatusOutput& out) {
  if (!in.built) return;
  const SnapshotIndex index(*in.built);
  std::unordered_map<std::string_view, const Region*> regions;
  for (const Region& r : in.gathered.world.regions) regions[r.meta.name] = &r;
  // As its own clients see them: a fallback region's nodes with the vantage
  // group of the region being judged. Unverified nodes answer only for the
  // Domains that allow it (answerUnknown), so they do not make a Region ready.
  auto can_answer = [&](const Region& r, std::string_view seen_by,
                        bool unverified) {
    for (const std::string& name : r.nodes) {
      const std::optional<NodeFacts> n = index.FactsFor(seen_by, name);
      if (n && Eligible(*n, unverified)) return true;
    }
    return false;
  };

  status::ForEachObject(in.observed.regions, [&](const json& object,
                                                 const std::string& kind_name) {
    if (auto bad = in.gathered.invalid.find(kind_name);
        bad != in.gathered.invalid.end()) {
      status::PlanInvalid(object, bad->second, "ready", in, out);
      return;
    }
    auto spec = regions.find(RefOf(object).name);
    if (spec == regions.end()) return;
    const Region& r = *spec->second;
    const size_t healthy = HealthyNodeCount(r, index);
    Condition ready = Ready(
        ConditionStatus::kFalse, "NoNodeCanAnswer",
        "neither its nodes nor its fallback regions' can answer: its clients "
        "get every healthy node, the domain fallback or fail-open answers");
    if (healthy > 0) {
      ready = Ready(ConditionStatus::kTrue, "NodesHealthy",
                    std::to_string(healthy) + " of " +
                        std::to_string(r.nodes.size()) +
                        " nodes are Up and Active");
    } else {
      for (const std::string& fallback : r.fallback_regions) {
        auto fb = regions.find(fallback);
        if (fb != regions.end() &&
            can_answer(*fb->second, r.meta.name, false)) {
          ready = Ready(ConditionStatus::kTrue, "FallbackRegion",
                        "none of its nodes can answer; Region " + fallback +
                            "'s answer its clients");
          break;
        }
      }
      if (ready.status == ConditionStatus::kFalse &&
          can_answer(r, r.meta.name, true)) {
        ready = Ready(ConditionStatus::kFalse, "NodesUnverified",
                      "no node is Up yet (not probed yet): they answer only "
                      "for Domains with answerUnknown");
      }
    }
    json status = {{"ready", ready.status == ConditionStatus::kTrue},
                   {"healthyNodes", healthy}};
    const SnapshotVantageGroup* group = index.GroupOf(r.meta.name);
    if (group) {
      status["vantageGroup"] = {{"name", group->name},
                                {"vantages", group->vantages},
                                {"usingGlobal", group->vantages == 0}};
    }
    status::Emit(
        object,
        status::WithConditions(std::move(status), object,
                               {ready, Measured(group)}, in.observed.now_ms),
        out);
  });
}

}  // namespace ax::controller
