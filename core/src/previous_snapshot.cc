// Name-based index over the previous snapshot.
#include "ax/previous_snapshot.h"

namespace ax {

PreviousSnapshot::PreviousSnapshot(const Snapshot* prev) : prev_(prev) {
  if (!prev) return;
  for (size_t i = 0; i < prev->domains.size(); ++i)
    domains_[prev->domains[i].name] = i;
  for (size_t i = 0; i < prev->regions.size(); ++i)
    regions_[prev->regions[i].name] = i;
  for (const SnapshotNode& n : prev->nodes) {
    health_[n.name] = n.health;
    up_[n.name] = {n.health, n.up_since_ms};
  }
  for (const SnapshotVantageGroup& g : prev->vantage_groups) {
    for (const GroupNodeView& v : g.nodes) {
      if (SeenByGroup(&g, v.node)) {
        group_up_[g.name][prev->nodes[v.node].name] = {v.health, v.up_since_ms};
      }
    }
  }
  for (const SnapshotRegion& r : prev->regions) {
    const SnapshotVantageGroup* g = GroupOf(*prev, r);
    if (!g) continue;
    for (const GroupNodeView& v : g->nodes) {
      if (SeenByGroup(g, v.node))
        seen_by_region_[r.name][prev->nodes[v.node].name] = v.health;
    }
  }
}

const Route* PreviousSnapshot::FindRoute(const std::string& domain,
                                         const std::string& region) const {
  if (!prev_) return nullptr;
  auto d = domains_.find(domain);
  if (d == domains_.end()) return nullptr;
  const auto& routes = prev_->domains[d->second].routes;
  if (routes.empty()) return nullptr;
  size_t slot = routes.size() - 1;  // the unclassified slot is last
  if (!region.empty()) {
    auto r = regions_.find(region);
    if (r == regions_.end()) return nullptr;
    slot = r->second;
  }
  if (slot >= routes.size() || routes[slot] >= prev_->routes.size())
    return nullptr;
  return &prev_->routes[routes[slot]];
}

std::optional<Health> PreviousSnapshot::HealthSeenFor(
    const std::string& region, const std::string& node) const {
  if (auto r = seen_by_region_.find(region); r != seen_by_region_.end()) {
    if (auto n = r->second.find(node); n != r->second.end()) return n->second;
  }
  auto it = health_.find(node);
  if (it == health_.end()) return std::nullopt;
  return it->second;
}

std::optional<PreviousSnapshot::UpState> PreviousSnapshot::NodeUpState(
    const std::string& node) const {
  auto it = up_.find(node);
  if (it == up_.end()) return std::nullopt;
  return it->second;
}

std::optional<PreviousSnapshot::UpState> PreviousSnapshot::GroupUpState(
    const std::string& group, const std::string& node) const {
  auto g = group_up_.find(group);
  if (g == group_up_.end()) return std::nullopt;
  auto it = g->second.find(node);
  if (it == g->second.end()) return std::nullopt;
  return it->second;
}

int64_t PreviousSnapshot::UpSince(Health health,
                                  const std::optional<UpState>& before,
                                  int64_t now_ms) const {
  if (health != Health::kUp || !prev_) return 0;
  if (before && before->health == Health::kUp) return before->up_since_ms;
  return now_ms;
}

}  // namespace ax
