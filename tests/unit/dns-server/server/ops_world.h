// A small world for the operating-surface tests, classified by CIDR only (no
// geo database needed): east 192.0.2.0/24 -> [a, b], west 198.51.100.0/24 ->
// [c], everyone else -> fallback to east. www (RegionPriority) excludes a by
// Rule and falls back to the CNAME origin.example.test; api (RegionPriority)
// has a 100% canary on c and falls back to the address 203.0.113.99. a and c
// have redirect URLs, b has none.
#pragma once

#include <memory>
#include <string>

#include "ax/snapshot.h"
#include "responder/serving_state.h"
#include "test_world.h"

namespace ax::dns::testing {

inline ax::testing::TestWorld OpsWorld() {
  ax::testing::TestWorld w;
  w.AddNode("a", "10.0.0.1").redirect_url = "https://a.edge.test/base/";
  w.AddNode("b", "10.0.0.2");
  w.AddNode("c", "10.0.0.3").redirect_url = "https://c.edge.test";
  w.AddRegion("east", {"a", "b"})
      .match.cidrs.push_back(*ParsePrefix("192.0.2.0/24"));
  w.AddRegion("west", {"c"})
      .match.cidrs.push_back(*ParsePrefix("198.51.100.0/24"));
  Region& rest = w.AddRegion("rest", {}, {"east"});
  rest.match.catch_all = true;
  w.AddDomain("www", Strategy::kRegionPriority, 1).fallback.cname =
      "origin.example.test";
  w.AddDomain("api", Strategy::kRegionPriority, 2)
      .fallback.addresses.push_back(*ParseIp("203.0.113.99"));
  w.AddRule("www-no-a", "www", RuleAction::kExclude, "a");
  w.AddCanary("api-c", "api", "c", 100);
  return w;
}

// Every node down: only the domains' fallbacks are left.
inline ax::testing::TestWorld OpsWorldAllDown() {
  ax::testing::TestWorld w = OpsWorld();
  for (auto& [name, status] : w.status) status.health = Health::kDown;
  return w;
}

// Snapshot indices by name (the builder sorts domains and nodes).
inline uint32_t DomainIndex(const Snapshot& s, const std::string& name) {
  for (uint32_t i = 0; i < s.domains.size(); ++i) {
    if (s.domains[i].name == name) return i;
  }
  throw std::runtime_error("no domain " + name);
}
inline uint32_t NodeIndex(const Snapshot& s, const std::string& name) {
  for (uint32_t i = 0; i < s.nodes.size(); ++i) {
    if (s.nodes[i].name == name) return i;
  }
  throw std::runtime_error("no node " + name);
}

inline std::shared_ptr<const ServingState> Serve(
    const ax::testing::TestWorld& w) {
  std::string error;
  auto state =
      ServingState::Make(std::make_shared<Snapshot>(w.Build()), {}, &error);
  if (!state) throw std::runtime_error(error);
  return state;
}

}  // namespace ax::dns::testing
