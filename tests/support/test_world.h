// Test helper: builds small Worlds in code (no YAML) and runs the builder +
// decider with explicit clocks and seeded RNGs. Shared by the decision-engine
// suites.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ax/build_snapshot.h"
#include "ax/decide.h"
#include "ax/model.h"

namespace ax::testing {

inline IpAddress Ip(const std::string& text) { return *ParseIp(text); }

class TestWorld {
 public:
  Node& AddNode(const std::string& name, const std::string& address,
                uint32_t weight = 100) {
    Node n;
    n.meta.name = name;
    n.addresses.push_back(Ip(address));
    n.weight = weight;
    n.health_check = HealthCheck{};  // probed: health comes from the status map
    world.nodes.push_back(n);
    status[name].health = Health::kUp;
    return world.nodes.back();
  }
  Region& AddRegion(const std::string& name, std::vector<std::string> nodes,
                    std::vector<std::string> fallback = {}) {
    Region r;
    r.meta.name = name;
    r.area = name;
    r.isp = "any";
    r.nodes = std::move(nodes);
    r.fallback_regions = std::move(fallback);
    world.regions.push_back(r);
    return world.regions.back();
  }
  Domain& AddDomain(const std::string& name, Strategy strategy,
                    uint32_t max_answers = 1) {
    Domain d;
    d.meta.name = name;
    d.fqdn = name + ".example.test";
    d.zone = "example.test";
    d.strategy = strategy;
    d.max_answers = max_answers;
    world.domains.push_back(d);
    return world.domains.back();
  }
  Rule& AddRule(const std::string& name, const std::string& domain,
                RuleAction action, const std::string& node) {
    Rule r;
    r.meta.name = name;
    r.domain = domain;
    r.action = action;
    r.node = node;
    world.rules.push_back(r);
    return world.rules.back();
  }
  Canary& AddCanary(const std::string& name, const std::string& domain,
                    const std::string& node, double percent) {
    Canary c;
    c.meta.name = name;
    c.domain = domain;
    c.node = node;
    c.steps.push_back({percent, 0});
    world.canaries.push_back(c);
    return world.canaries.back();
  }
  Node& node(const std::string& name) {
    for (Node& n : world.nodes) {
      if (n.meta.name == name) return n;
    }
    throw std::runtime_error("no node " + name);
  }

  Snapshot Build(int64_t now_ms = 1'000'000,
                 const Snapshot* previous = nullptr) const {
    BuildOptions opts;
    opts.now_ms = now_ms;
    opts.version = previous ? previous->version + 1 : 1;
    return BuildSnapshot(world, status, previous, opts, groups);
  }

  World world;
  StatusMap status;
  GroupQuorums groups;  // per vantage group (DecideGroupQuorums)
};

inline uint32_t RegionIndex(const Snapshot& s, const std::string& name) {
  for (uint32_t i = 0; i < s.regions.size(); ++i) {
    if (s.regions[i].name == name) return i;
  }
  return kNoIndex;
}

inline const SnapshotDomain& DomainNamed(const Snapshot& s,
                                         const std::string& name) {
  for (const SnapshotDomain& d : s.domains) {
    if (d.name == name) return d;
  }
  throw std::runtime_error("no domain " + name);
}

// Node names of an answer, in order.
inline std::vector<std::string> Names(const Snapshot& s, const Answer& a) {
  std::vector<std::string> out;
  for (uint32_t i = 0; i < a.count; ++i)
    out.push_back(s.nodes[a.nodes[i]].name);
  return out;
}

// A client from the i-th /24 of 10.0.0.0/8 (or 100.64/10 past 65536): distinct
// subnets.
inline ClientContext ClientNumber(uint32_t i) {
  IpAddress ip;
  ip.family = IpFamily::kV4;
  ip.bytes[0] = static_cast<uint8_t>(10 + (i >> 16));
  ip.bytes[1] = static_cast<uint8_t>(i >> 8);
  ip.bytes[2] = static_cast<uint8_t>(i);
  ip.bytes[3] = 7;
  return ClientContext{ClientCohort(ip)};
}

// How often each node leads the answer over `n` queries from `region`.
inline std::map<std::string, int> LeadCounts(const Snapshot& s,
                                             const std::string& domain,
                                             const std::string& region, int n,
                                             uint64_t seed,
                                             bool vary_client = false) {
  Rng rng(seed);
  std::map<std::string, int> counts;
  const SnapshotDomain& d = DomainNamed(s, domain);
  for (int i = 0; i < n; ++i) {
    const ClientContext client = ClientNumber(vary_client ? i : 0);
    Answer a =
        Decide(s, d, RegionIndex(s, region), client, IpFamily::kV4, 0, rng);
    if (a.count > 0) ++counts[s.nodes[a.nodes[0]].name];
  }
  return counts;
}

}  // namespace ax::testing
