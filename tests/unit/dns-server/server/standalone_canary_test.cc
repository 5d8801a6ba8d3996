// The quickstart Canary in standalone mode: it starts at its first step,
// moves to the next one each time its pause has passed on the source's clock
// (injected here, so the pauses pass without waiting for them), ends on its
// last step, and restarts when its spec is edited; the plan's requeue time
// wakes the loop without waiting for the periodic tick. An operator's
// rollback holds while the canary would step on, until the manifests change.
#include <gtest/gtest.h>

#include <atomic>
#include <string>

#include "standalone_dir.h"

namespace ax::dns {
namespace {

using namespace std::chrono_literals;
using testing::WaitFor;

// 2026-11-30T00:53:20Z: canary steps start on whole seconds, as status keeps
// them.
constexpr int64_t kT0 = 1'796'000'000'000;

class StandaloneCanaryTest : public testing::StandaloneDirTest {
 protected:
  void SetUp() override {
    StandaloneDirTest::SetUp();
    // 5% for 2 s, 20% for 2 s, 50% for 3 s, then 100%.
    Edit("canaries.yaml", {{"pause: 10m}", "pause: 2s}"},
                           {"pause: 10m}", "pause: 2s}"},
                           {"pause: 30m}", "pause: 3s}"}});
  }
  // The share the served snapshot gives the canary; -1 without one.
  double Percent() const {
    const auto state = store_.Current();
    if (!state) return -1;
    for (const SnapshotCanary& c : state->snapshot().canaries) {
      if (c.name == "api-sj-02") return c.percent;
    }
    return -1;
  }
  // The value of `family`{canary="api-sj-02"[, phase=`phase`]}.
  static double Sample(const StandaloneSource& source,
                       const std::string& family,
                       const std::string& phase = "") {
    for (const auto& f : source.plan_metrics()->Collect()) {
      if (f.name != family) continue;
      for (const auto& m : f.metric) {
        if (m.label.at(0).value != "api-sj-02") continue;
        if (!phase.empty() && m.label.at(1).value != phase) continue;
        return m.gauge.value;
      }
    }
    return -1;
  }

  std::atomic<int64_t> now_{kT0};
};

TEST_F(StandaloneCanaryTest, StepsThroughItsPausesOnTheSourcesClock) {
  // --no-probe: sj-02 counts Up by adminState, so the rollout starts.
  const auto source = StartSource({.debounce = 20ms,
                                   .rebuild_interval = 20ms,
                                   .wall_ms = [this] { return now_.load(); }});
  ASSERT_EQ(Percent(), 5);
  EXPECT_EQ(Sample(*source, "ax_dns_standalone_canary_percent"), 5);
  EXPECT_EQ(Sample(*source, "ax_dns_standalone_canary_phase", "Progressing"),
            1);
  EXPECT_EQ(Sample(*source, "ax_dns_standalone_canary_phase", "Pending"), 0);
  const uint64_t first = store_.Current()->snapshot().version;

  now_ = kT0 + 2'000;
  ASSERT_TRUE(WaitFor([&] { return Percent() == 20; })) << Percent();
  now_ = kT0 + 4'000;
  ASSERT_TRUE(WaitFor([&] { return Percent() == 50; })) << Percent();
  now_ = kT0 + 7'000;
  ASSERT_TRUE(WaitFor([&] { return Percent() == 100; })) << Percent();
  ASSERT_TRUE(WaitFor([&] {
    return Sample(*source, "ax_dns_standalone_canary_phase", "Succeeded") == 1;
  }));
  EXPECT_GT(store_.Current()->snapshot().version, first);

  // Succeeded holds; an edit is a new generation and starts over.
  Edit("canaries.yaml", {{"maxFailures: 3", "maxFailures: 4"}});
  ASSERT_TRUE(WaitFor([&] { return Percent() == 5; })) << Percent();
}

TEST_F(StandaloneCanaryTest, ARollbackHoldsUntilTheManifestsChange) {
  const auto source = StartSource({.debounce = 20ms,
                                   .rebuild_interval = 20ms,
                                   .wall_ms = [this] { return now_.load(); }});
  const uint64_t first = store_.Current()->snapshot().version;
  now_ = kT0 + 2'000;
  ASSERT_TRUE(WaitFor([&] { return Percent() == 20; })) << Percent();

  std::string error;
  ASSERT_TRUE(store_.Rollback(first, &error)) << error;
  ASSERT_EQ(Percent(), 5);
  // The canary's next step is due: three passes, and none serves it.
  now_ = kT0 + 4'000;
  const uint64_t passes = source->Passes();
  ASSERT_TRUE(WaitFor([&] { return source->Passes() >= passes + 3; }));
  EXPECT_EQ(store_.Current()->snapshot().version, first);
  EXPECT_TRUE(store_.Status().rolled_back);

  // An edit is what the rollback waited for: planned and served again.
  Edit("canaries.yaml", {{"maxFailures: 3", "maxFailures: 4"}});
  ASSERT_TRUE(WaitFor([&] { return !store_.Status().rolled_back; }));
  EXPECT_GT(store_.Current()->snapshot().version, first);
}

TEST_F(StandaloneCanaryTest, TheRequeueTimeWakesTheLoop) {
  Edit("canaries.yaml", {{"pause: 2s}", "pause: 1s}"}});
  // The real clock; the periodic tick far away.
  const auto source = StartSource({.debounce = 20ms, .rebuild_interval = 600s});
  ASSERT_EQ(Percent(), 5);
  // Due 1 s after the step's whole second began: within 2 s.
  EXPECT_TRUE(WaitFor([&] { return Percent() == 20; }, 4s)) << Percent();
}

}  // namespace
}  // namespace ax::dns
