// What-ifs on a served snapshot, rebuilt by the operator's planner.
#include "axctl/what_if.h"

#include <algorithm>

#include "ax/build_snapshot.h"
#include "ax/validate.h"
#include "axctl/args.h"

namespace ax {
namespace {

// The synthetic names of a group's `count` fresh vantages: the snapshot keeps
// how many voted, not who.
std::vector<std::string> VantageNames(const std::string& group,
                                      uint32_t count) {
  std::vector<std::string> names;
  for (uint32_t i = 1; i <= count; ++i) {
    names.push_back(group + "#" + std::to_string(i));
  }
  return names;
}

template <typename T>
void Merge(const std::vector<T>& from, std::vector<T>& into) {
  for (const T& object : from) {
    auto it = std::find_if(into.begin(), into.end(), [&](const T& held) {
      return held.meta.name == object.meta.name;
    });
    if (it == into.end()) {
      into.push_back(object);
    } else {
      *it = object;
    }
  }
}

void Vote(NodeVerdict& verdict, Health health) {
  const auto votes = static_cast<uint32_t>(verdict.counted.size());
  verdict.health = health;
  verdict.up_votes = health == Health::kUp ? votes : 0;
  verdict.down_votes = health == Health::kDown ? votes : 0;
}

std::string Names(const GroupQuorums& groups) {
  std::string out;
  for (const auto& [name, quorum] : groups) {
    out += (out.empty() ? "" : ", ") + name;
  }
  return out.empty() ? "none" : out;
}

}  // namespace

std::optional<WhatIf::HealthOverride> ParseHealthOverride(std::string_view text,
                                                          Health health,
                                                          std::string& error) {
  const size_t at = text.find('@');
  WhatIf::HealthOverride out{std::string(text.substr(0, at)),
                             at == std::string_view::npos
                                 ? std::string()
                                 : std::string(text.substr(at + 1)),
                             health};
  if (out.node.empty() || (at != std::string_view::npos && out.group.empty())) {
    error = "'" + std::string(text) + "': want NODE or NODE@VANTAGE-GROUP";
    return std::nullopt;
  }
  return out;
}

bool ParseLoadOverride(std::string_view text, WhatIf& what_if,
                       std::string& error) {
  const size_t eq = text.find('=');
  const std::optional<double> parsed =
      eq != std::string_view::npos && eq > 0
          ? ParseNumber<double>(text.substr(eq + 1))
          : std::nullopt;
  const double percent = parsed.value_or(-1);
  if (percent < 0 || percent > 1000) {
    error = "'" + std::string(text) +
            "': want NODE=PERCENT, the load over its capacity (0 to 1000)";
    return false;
  }
  what_if.load_percent[std::string(text.substr(0, eq))] = percent;
  return true;
}

BuildInputs InputsOfSnapshot(const Snapshot& served, const World& world) {
  BuildInputs in;
  for (const SnapshotNode& n : served.nodes) {
    NodeStatus& s = in.status[n.name];
    s.health = n.health;
    s.health_changed_at_ms = n.up_since_ms;
    if (n.latency_ms >= 0) s.latency_ms = n.latency_ms;
    auto declared = std::find_if(
        world.nodes.begin(), world.nodes.end(),
        [&](const Node& node) { return node.meta.name == n.name; });
    if (n.utilisation >= 0 && declared != world.nodes.end()) {
      s.load = NodeLoad{n.utilisation * declared->capacity.bandwidth_mbps,
                        n.utilisation * declared->capacity.connections};
    }
  }
  for (const SnapshotVantageGroup& g : served.vantage_groups) {
    QuorumResult& q = in.groups[g.name];
    const std::vector<std::string> vantages = VantageNames(g.name, g.vantages);
    // A group whose vantages all went stale still has members: its regions
    // then say they use the global verdicts.
    if (vantages.empty()) q.stale_vantages.push_back(g.name + "#stale");
    for (const GroupNodeView& v : g.nodes) {
      NodeVerdict& verdict = q.nodes[served.nodes.at(v.node).name];
      verdict.health = v.health;
      verdict.up_votes = v.up_votes;
      verdict.down_votes = v.down_votes;
      verdict.counted = vantages;
      if (v.latency_ms >= 0) verdict.latency_ms = v.latency_ms;
      verdict.health_changed_at_ms = v.up_since_ms;
    }
  }
  return in;
}

std::vector<std::string> ApplyWhatIf(const WhatIf& what_if, World& world,
                                     BuildInputs& inputs) {
  std::vector<std::string> errors;
  Merge(what_if.objects.domains, world.domains);
  Merge(what_if.objects.regions, world.regions);
  Merge(what_if.objects.nodes, world.nodes);
  Merge(what_if.objects.rules, world.rules);
  Merge(what_if.objects.canaries, world.canaries);
  Merge(what_if.objects.isp_sets, world.isp_sets);
  Merge(what_if.objects.geo_overrides, world.geo_overrides);
  for (const ManifestError& e : Validate(world)) errors.push_back(e.ToString());
  auto node_of = [&](const std::string& name) -> const Node* {
    for (const Node& n : world.nodes) {
      if (n.meta.name == name) return &n;
    }
    errors.push_back("no Node named " + name);
    return nullptr;
  };
  for (const WhatIf::HealthOverride& o : what_if.health) {
    const Node* node = node_of(o.node);
    if (node == nullptr) continue;
    if (!node->health_check) {
      errors.push_back("Node " + o.node +
                       " has no healthCheck: its health follows adminState "
                       "(simulate that with --apply and spec.adminState)");
      continue;
    }
    if (o.group.empty()) {
      inputs.status[o.node].health = o.health;
      // Every vantage sees it so: the groups that measured it too.
      for (auto& [name, quorum] : inputs.groups) {
        auto it = quorum.nodes.find(o.node);
        if (it != quorum.nodes.end()) Vote(it->second, o.health);
      }
      continue;
    }
    auto group = inputs.groups.find(o.group);
    if (group == inputs.groups.end()) {
      errors.push_back("no vantage group " + o.group +
                       " measures in the served snapshot (groups: " +
                       Names(inputs.groups) + ")");
      continue;
    }
    QuorumResult& quorum = group->second;
    NodeVerdict& verdict = quorum.nodes[o.node];
    if (verdict.counted.empty()) {
      verdict.counted = CountedVantages(quorum);
    }
    Vote(verdict, o.health);
  }
  for (const auto& [name, percent] : what_if.load_percent) {
    const Node* node = node_of(name);
    if (node == nullptr) continue;
    const Capacity& c = node->capacity;
    if (c.bandwidth_mbps <= 0 && c.connections <= 0) {
      errors.push_back("Node " + name +
                       " declares no capacity: a load has nothing to be "
                       "measured against");
      continue;
    }
    inputs.status[name].load = NodeLoad{percent / 100 * c.bandwidth_mbps,
                                        percent / 100 * c.connections};
  }
  return errors;
}

Snapshot Rebuild(const World& world, const BuildInputs& inputs,
                 const Snapshot& served, int64_t now_ms) {
  return BuildSnapshot(world, inputs.status, &served,
                       {.now_ms = now_ms, .version = served.version + 1},
                       inputs.groups);
}

}  // namespace ax
