// Decision-core benchmarks (DESIGN §3 targets, issue 2): one decision for a
// 20-candidate region once the snapshot is built (target: well under 1 us),
// classification, and building + serialising the snapshot for 1,000 nodes x 200
// regions x 50 domains (target: well under 1 s, under 1 MiB). Rerun:
// tests/bench/run_core_bench.sh.
#include <benchmark/benchmark.h>

#include <string>

#include "ax/build_snapshot.h"
#include "ax/classify.h"
#include "ax/decide.h"
#include "ax/snapshot_json.h"

namespace ax {
namespace {

// A deterministic large world: `nodes` nodes spread over `regions` regions
// (each region lists `per_region` nodes, wrapping around), `domains` domains
// split between two strategies and two node selectors, one canary, a few rules.
World MakeWorld(int nodes, int regions, int domains, int per_region) {
  World w;
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
    n.location = GeoPoint{-60 + (i * 7) % 120, -170 + (i * 13) % 340};
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

StatusMap MakeStatus(const World& w) {
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

void BM_BuildSnapshot(benchmark::State& state) {
  const World w = MakeWorld(1000, 200, 50, 5);
  const StatusMap status = MakeStatus(w);
  Snapshot previous = BuildSnapshot(w, status, nullptr, {});
  for (auto _ : state) {
    Snapshot s =
        BuildSnapshot(w, status, &previous, {.now_ms = 1000, .version = 2});
    benchmark::DoNotOptimize(s);
  }
  state.counters["routes"] = static_cast<double>(previous.routes.size());
}
BENCHMARK(BM_BuildSnapshot)->Unit(benchmark::kMillisecond);

void BM_BuildAndSerialiseSnapshot(benchmark::State& state) {
  const World w = MakeWorld(1000, 200, 50, 5);
  const StatusMap status = MakeStatus(w);
  size_t bytes = 0;
  for (auto _ : state) {
    const std::string json =
        SerializeSnapshot(BuildSnapshot(w, status, nullptr, {}));
    bytes = json.size();
    benchmark::DoNotOptimize(json);
  }
  state.counters["bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_BuildAndSerialiseSnapshot)->Unit(benchmark::kMillisecond);

void BM_ParseSnapshot(benchmark::State& state) {
  const World w = MakeWorld(1000, 200, 50, 5);
  const std::string json =
      SerializeSnapshot(BuildSnapshot(w, MakeStatus(w), nullptr, {}));
  for (auto _ : state) {
    auto parsed = ParseSnapshot(json);
    benchmark::DoNotOptimize(parsed);
  }
}
BENCHMARK(BM_ParseSnapshot)->Unit(benchmark::kMillisecond);

// One decision on a 20-candidate region, per strategy.
void BM_Decide20(benchmark::State& state) {
  World w = MakeWorld(40, 2, 1, 20);
  w.canaries.clear();
  w.domains[0].strategy = static_cast<Strategy>(state.range(0));
  w.domains[0].max_answers = static_cast<uint32_t>(state.range(1));
  const StatusMap status = MakeStatus(w);
  const Snapshot s = BuildSnapshot(w, status, nullptr, {});
  Rng rng(1);
  uint32_t i = 0;
  for (auto _ : state) {
    IpAddress ip;
    ip.bytes = {100, 0, static_cast<uint8_t>(i >> 8), static_cast<uint8_t>(i)};
    ++i;
    ClientContext client{ClientCohort(ip), true, GeoPoint{30, 110}};
    Answer a = Decide(s, s.domains[0], 0, client, IpFamily::kV4, 0, rng);
    benchmark::DoNotOptimize(a);
  }
  state.SetLabel(StrategyName(w.domains[0].strategy));
}
BENCHMARK(BM_Decide20)
    ->ArgsProduct({{static_cast<int>(Strategy::kRegionPriority),
                    static_cast<int>(Strategy::kWeightedRandom),
                    static_cast<int>(Strategy::kConsistentHash),
                    static_cast<int>(Strategy::kGeoClosest)},
                   {1, 2}});

// Classification of a client against 200 regions (CIDR + subdivision + ASN).
void BM_Classify(benchmark::State& state) {
  const World w = MakeWorld(1000, 200, 1, 5);
  const Snapshot s = BuildSnapshot(w, MakeStatus(w), nullptr, {});
  const Classifier classifier(s.regions);
  GeoInfo geo;
  geo.country = "XX";
  geo.subdivision = "XX-77";
  geo.asn = 64512 + 77;
  geo.geo_prefix_length = 20;
  uint32_t i = 0;
  for (auto _ : state) {
    IpAddress ip;
    ip.bytes = {static_cast<uint8_t>(i & 1 ? 100 : 101),
                static_cast<uint8_t>(i % 256), 3, 4};
    ++i;
    benchmark::DoNotOptimize(classifier.Classify(ip, geo));
  }
}
BENCHMARK(BM_Classify);

}  // namespace
}  // namespace ax

BENCHMARK_MAIN();
