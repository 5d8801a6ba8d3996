// Operator plan benchmarks (issue 6): one ComputePlan over 1,000 Nodes x 200
// Regions x 50 Domains with three vantages' ProbeReports (first publish, one
// Node changed, nothing changed), the same with 6 vantage groups of 3 placed
// vantages more (issue 14), and decoding the route-table ConfigMap alone.
// Counters: document bytes, stored (gzip) bytes, status writes. Rerun:
// tests/bench/run_micro_bench.sh plan.
#include <benchmark/benchmark.h>

#include "ax/controller/plan.h"
#include "ax/route_table_configmap.h"
#include "large_world.h"
#include "operator_objects.h"

namespace ax::controller {
namespace {

constexpr int64_t kNowMs = 1'796'000'000'000;

ObservedState ScaleState() {
  const World w = testing::MakeWorld(1000, 200, 50, 5);
  ObservedState o = testing::ObservedFromWorld(w);
  o.probe_reports =
      testing::ReportsFromStatus(testing::MakeStatus(w), 3, kNowMs - 1000);
  o.now_ms = kNowMs;
  return o;
}

// ScaleState plus 6 vantage groups of 3 placed vantages (issue 14), each
// group seeing its own nodes Down (large_world.h MakeVantageReports).
ObservedState GroupedState() {
  const World w = testing::MakeWorld(1000, 200, 50, 5);
  ObservedState o = ScaleState();
  for (const VantageVerdicts& v :
       testing::MakeVantageReports(w, 6, 3, kNowMs - 1000)) {
    std::vector<ProbeNodeReport> results;
    for (const auto& [node, s] : v.nodes) {
      results.push_back(testing::NodeResult(
          node, s.health, s.latency_ms.value_or(1), kNowMs - 600'000));
    }
    nlohmann::json report =
        testing::ReportObject(v.vantage, v.observed_at_ms, std::move(results));
    report["spec"]["area"] = v.identity.area;
    report["spec"]["isp"] = v.identity.isp;
    o.probe_reports.push_back(std::move(report));
  }
  return o;
}

// The state after the first plan was applied.
ObservedState Published(ObservedState o = ScaleState()) {
  int64_t revision = 0;
  testing::ApplyPlan(ComputePlan(o), o, revision);
  o.now_ms += 1000;
  return o;
}

void Report(benchmark::State& state, const Plan& plan) {
  state.counters["bytes"] = static_cast<double>(plan.summary.snapshot_bytes);
  state.counters["payload_bytes"] =
      static_cast<double>(plan.summary.payload_bytes);
  state.counters["status_updates"] =
      static_cast<double>(plan.status_updates.size());
}

// ComputePlan(o) repeatedly; the counters of the last plan.
void PlanEach(benchmark::State& state, const ObservedState& o) {
  Plan plan;
  for (auto _ : state) {
    plan = ComputePlan(o);
    benchmark::DoNotOptimize(plan);
  }
  Report(state, plan);
}

void BM_PlanFirstPublish(benchmark::State& state) {
  const ObservedState o = ScaleState();
  PlanEach(state, o);
}
BENCHMARK(BM_PlanFirstPublish)->Unit(benchmark::kMillisecond);

void BM_PlanOneNodeChanged(benchmark::State& state) {
  ObservedState o = Published();
  nlohmann::json& node = o.nodes[500];
  node["spec"]["weight"] = 7;
  node["metadata"]["generation"] = 2;
  PlanEach(state, o);
}
BENCHMARK(BM_PlanOneNodeChanged)->Unit(benchmark::kMillisecond);

void BM_PlanUnchanged(benchmark::State& state) {
  const ObservedState o = Published();
  PlanEach(state, o);
}
BENCHMARK(BM_PlanUnchanged)->Unit(benchmark::kMillisecond);

void BM_PlanWithVantageGroupsFirstPublish(benchmark::State& state) {
  const ObservedState o = GroupedState();
  PlanEach(state, o);
}
BENCHMARK(BM_PlanWithVantageGroupsFirstPublish)->Unit(benchmark::kMillisecond);

void BM_PlanWithVantageGroupsUnchanged(benchmark::State& state) {
  const ObservedState o = Published(GroupedState());
  PlanEach(state, o);
}
BENCHMARK(BM_PlanWithVantageGroupsUnchanged)->Unit(benchmark::kMillisecond);

// What every plan with a table in force pays first: decoding its ConfigMap.
void BM_ParseRouteTableConfigMap(benchmark::State& state) {
  const ObservedState o = Published();
  for (auto _ : state) {
    ParseRouteTableResult parsed = ParseRouteTableConfigMap(*o.route_table);
    benchmark::DoNotOptimize(parsed);
  }
}
BENCHMARK(BM_ParseRouteTableConfigMap)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace ax::controller

BENCHMARK_MAIN();
