// Decision-core benchmarks (issue 2 targets): one decision for a
// 20-candidate region once the snapshot is built (target: well under 1 us),
// classification, and building + serialising the snapshot for 1,000 nodes x 200
// regions x 50 domains (target: well under 1 s, under 1 MiB), also with 6
// vantage groups of 3 vantages each (issue 14: the quorums + build). Rerun:
// tests/bench/run_micro_bench.sh core.
#include <benchmark/benchmark.h>

#include <string>

#include "ax/build_snapshot.h"
#include "ax/classify.h"
#include "ax/decide.h"
#include "ax/snapshot_json.h"
#include "large_world.h"

namespace ax {
namespace {

using ::ax::testing::MakeStatus;
using ::ax::testing::MakeWorld;

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

// The plan's health and build steps with vantage groups: the global quorum
// over 18 vantages x 1,000 nodes, each region's group quorum, the build.
void BM_BuildSnapshotWithVantageGroups(benchmark::State& state) {
  const World w = MakeWorld(1000, 200, 50, 5);
  const std::vector<VantageVerdicts> reports =
      ::ax::testing::MakeVantageReports(w, 6, 3, 1000);
  size_t bytes = 0;
  for (auto _ : state) {
    const QuorumResult global = DecideQuorum(reports, 2000, {});
    const Snapshot s =
        BuildSnapshot(w, global.ToStatusMap(), nullptr, {.now_ms = 2000},
                      DecideGroupQuorums(w.regions, reports, global, 2000, {}));
    bytes = SerializeSnapshot(s).size();
    benchmark::DoNotOptimize(bytes);
  }
  state.counters["bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_BuildSnapshotWithVantageGroups)->Unit(benchmark::kMillisecond);

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
  const Classifier classifier(s);
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
