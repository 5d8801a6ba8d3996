// The small world the responder suites and the query fuzz target answer from
// (zone example.test). Plain C++ on top of the core's TestWorld: no test
// framework, so that the fuzz target can build it too.
#pragma once

#include <string>

#include "ax/ip.h"
#include "test_world.h"

namespace ax::dns::testing {

// The world most tables run against (zone example.test):
//   regions east (CIDR 203.0.113.0/24: e1, e2), cn (country CN: c1), default
//   (catch-all: d1); node g1 in no region (tier=global), down1 down
//   (tier=dead), many (40 IPv4 addresses, tier=many). domains www
//   (RegionPriority, 2 answers), api (gRPC config, 4 answers), flat (g1 only:
//   one route everywhere), origin (CNAME fallback), fixed (fallback addresses),
//   hash (ConsistentHash), canary (50% canary to g1), big (40 A records),
//   x.deep (below an empty non-terminal). www, hash, origin and fixed publish
//   SRV _http._tcp on port 8080.
inline ax::testing::TestWorld ResponderWorld() {
  using ax::testing::TestWorld;
  TestWorld w;
  w.AddNode("e1", "10.1.0.1");
  w.AddNode("e2", "10.1.0.2");
  w.AddNode("c1", "10.2.0.1").addresses.push_back(*ParseIp("2001:db8::21"));
  w.AddNode("d1", "10.3.0.1").addresses.push_back(*ParseIp("2001:db8::31"));
  w.AddNode("g1", "10.9.0.1").meta.labels["tier"] = "global";
  w.AddNode("down1", "10.8.0.1").meta.labels["tier"] = "dead";
  w.status["down1"].health = Health::kDown;
  Node& many = w.AddNode("many", "10.7.0.1");
  many.meta.labels["tier"] = "many";
  for (int i = 2; i <= 40; ++i) {
    many.addresses.push_back(*ParseIp("10.7.0." + std::to_string(i)));
  }
  w.AddRegion("east", {"e1", "e2"})
      .match.cidrs.push_back(*ParsePrefix("203.0.113.0/24"));
  w.AddRegion("cn", {"c1"}).match.countries.push_back("CN");
  w.AddRegion("default", {"d1"}).match.catch_all = true;
  const SrvService http{"http", "tcp", 8080};
  w.AddDomain("www", Strategy::kRegionPriority, 2).srv = {http};
  w.AddDomain("api", Strategy::kRegionPriority, 4).grpc_service_config =
      R"({"loadBalancingConfig":[{"round_robin":{}}],"methodConfig":[{"name":[{"service":")" +
      std::string(250, 's') + R"("}],"waitForReady":true}]})";
  w.AddDomain("flat", Strategy::kRegionPriority).node_selector["tier"] =
      "global";
  Domain& origin = w.AddDomain("origin", Strategy::kRegionPriority);
  origin.node_selector["tier"] = "dead";
  origin.fallback.cname = "origin.example.net";
  origin.srv = {http};
  Domain& fixed = w.AddDomain("fixed", Strategy::kRegionPriority);
  fixed.node_selector["tier"] = "dead";
  fixed.fallback.addresses = {*ParseIp("192.0.2.200"),
                              *ParseIp("2001:db8::200")};
  fixed.srv = {http};
  w.AddDomain("hash", Strategy::kConsistentHash).srv = {http};
  w.AddDomain("canary", Strategy::kRegionPriority);
  w.AddCanary("canary-g1", "canary", "g1", 50);
  w.AddDomain("big", Strategy::kRegionPriority).node_selector["tier"] = "many";
  w.AddDomain("x.deep", Strategy::kRegionPriority);
  return w;
}

}  // namespace ax::dns::testing
