// Test support: a deterministic large World (nodes x regions x domains) and a
// status map for it, shared by the scale tests and the core benchmarks so both
// measure the same shape of input.
#pragma once

#include <string>

#include "ax/model.h"
#include "ax/node_status.h"
#include "ax/quorum.h"

namespace ax::testing {

// A deterministic large world: `nodes` nodes spread over `regions` regions
// (each region lists `per_region` nodes, wrapping around), `domains` domains
// split between two strategies and two node selectors, one canary, a few
// rules, and the four ISP sets the regions' isp names (each region matches on
// one of them besides its own ASN).
inline World MakeWorld(int nodes, int regions, int domains, int per_region) {
  World w;
  for (uint32_t k = 0; k < 4; ++k) {
    IspSet s;
    s.meta.name = "isp-" + std::to_string(k);
    s.asns = {65000 + k, 65100 + k};
    w.isp_sets.push_back(s);
  }
  for (int i = 0; i < nodes; ++i) {
    Node n;
    n.meta.name = "node-" + std::to_string(i);
    n.meta.labels["tier"] = i % 2 ? "edge" : "core";
    IpAddress v4;
    v4.family = IpFamily::kV4;
    v4.bytes = {10, static_cast<uint8_t>(i >> 8), static_cast<uint8_t>(i), 1};
    n.addresses.push_back(v4);
    IpAddress v6 = *ParseIp("2001:db8::");
    v6.bytes[6] = static_cast<uint8_t>(i >> 8);
    v6.bytes[7] = static_cast<uint8_t>(i);
    n.addresses.push_back(v6);
    n.location = GeoPoint{-60.0 + (i * 7) % 120, -170.0 + (i * 13) % 340};
    n.weight = 50 + i % 100;
    n.capacity = {1000, 10000};
    n.health_check = HealthCheck{};
    w.nodes.push_back(n);
  }
  for (int r = 0; r < regions; ++r) {
    Region g;
    g.meta.name = "region-" + std::to_string(r);
    g.area = "area-" + std::to_string(r / 4);
    g.isp = "isp-" + std::to_string(r % 4);
    g.match.subdivisions.push_back("XX-" + std::to_string(r));
    g.match.asns.push_back(64512 + r);
    g.match.isps.push_back(g.isp);
    g.match.cidrs.push_back(
        *ParsePrefix("100." + std::to_string(r) + ".0.0/16"));
    for (int k = 0; k < per_region; ++k) {
      g.nodes.push_back("node-" + std::to_string((r * per_region + k) % nodes));
    }
    g.fallback_regions.push_back("region-" + std::to_string((r + 1) % regions));
    w.regions.push_back(g);
  }
  for (int d = 0; d < domains; ++d) {
    Domain dom;
    dom.meta.name = "domain-" + std::to_string(d);
    dom.fqdn = dom.meta.name + ".example.test";
    dom.zone = "example.test";
    dom.strategy =
        d % 2 ? Strategy::kWeightedRandom : Strategy::kRegionPriority;
    if (d % 5 == 0) dom.node_selector["tier"] = "edge";
    dom.max_answers = 2;
    w.domains.push_back(dom);
  }
  Canary c;
  c.meta.name = "canary-0";
  c.domain = "domain-1";
  c.node = "node-1";
  c.steps.push_back({5, 60});
  w.canaries.push_back(c);
  Rule rule;
  rule.meta.name = "exclude-3";
  rule.domain = "domain-2";
  rule.action = RuleAction::kExclude;
  rule.node = "node-3";
  w.rules.push_back(rule);
  return w;
}

inline StatusMap MakeStatus(const World& w) {
  StatusMap status;
  for (size_t i = 0; i < w.nodes.size(); ++i) {
    NodeStatus s;
    s.health = i % 17 == 5 ? Health::kDown : Health::kUp;
    s.latency_ms = 5.0 + static_cast<double>(i % 40);
    s.load = NodeLoad{static_cast<double>(i % 1200),
                      static_cast<double>(i * 7 % 12000)};
    status[w.nodes[i].meta.name] = s;
  }
  return status;
}

// `groups` x `per_group` vantages placed where MakeWorld's first `groups`
// regions are (area-0/isp-0, area-0/isp-1, ...), each reporting every node:
// Up with a latency that differs per group, except that group g sees the
// nodes i with i % 23 == g Down (a path failure only it sees).
inline std::vector<VantageVerdicts> MakeVantageReports(const World& w,
                                                       int groups,
                                                       int per_group,
                                                       int64_t observed_at_ms) {
  std::vector<VantageVerdicts> out;
  for (int g = 0; g < groups; ++g) {
    const Region& region = w.regions[static_cast<size_t>(g)];
    for (int v = 0; v < per_group; ++v) {
      VantageVerdicts report{
          .vantage = region.area + "-" + region.isp + "-" + std::to_string(v),
          .identity = {.area = region.area, .isp = region.isp, .labels = {}},
          .observed_at_ms = observed_at_ms,
          .nodes = {}};
      for (size_t i = 0; i < w.nodes.size(); ++i) {
        NodeStatus s;
        s.health = static_cast<int>(i % 23) == g ? Health::kDown : Health::kUp;
        if (s.health == Health::kUp) {
          s.latency_ms = 5.0 + static_cast<double>((i * (g + 3)) % 60) + v;
        }
        s.health_changed_at_ms = 1000;
        report.nodes[w.nodes[i].meta.name] = s;
      }
      out.push_back(std::move(report));
    }
  }
  return out;
}

}  // namespace ax::testing
