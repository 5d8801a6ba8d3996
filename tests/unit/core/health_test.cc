// The per-vantage health state machine: thresholds, cold start, ordering,
// latency smoothing, anti-flap thresholds and flap damping. Clocks are
// explicit at_ms values.
#include "ax/health.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace ax {
namespace {

// Probes one second apart: 'S' succeeds, 'F' fails.
ProbeResult Probe(char kind, int64_t at_ms) {
  ProbeResult r;
  r.ok = kind == 'S';
  r.at_ms = at_ms;
  if (!r.ok) r.error = "connect: refused";
  return r;
}

HealthTracker Replay(const std::string& pattern, const HealthPolicy& policy) {
  HealthTracker t;
  for (size_t i = 0; i < pattern.size(); ++i) {
    t.Observe(Probe(pattern[i], 1000 * static_cast<int64_t>(i + 1)), policy);
  }
  return t;
}

struct PatternCase {
  const char* name;
  std::string pattern;
  HealthPolicy policy;
  Health want;
  uint32_t want_transitions;
};

HealthPolicy Thresholds(uint32_t fall, uint32_t rise) {
  HealthPolicy p;
  p.failure_threshold = fall;
  p.success_threshold = rise;
  return p;
}

void PrintTo(const PatternCase& c, std::ostream* os) { *os << c.name; }

class PatternTest : public ::testing::TestWithParam<PatternCase> {};

TEST_P(PatternTest, EndsInExpectedState) {
  const PatternCase& c = GetParam();
  HealthTracker t = Replay(c.pattern, c.policy);
  EXPECT_EQ(HealthName(t.state()), std::string(HealthName(c.want)))
      << c.pattern;
  EXPECT_EQ(t.transitions(), c.want_transitions) << c.pattern;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, PatternTest,
    ::testing::Values(
        PatternCase{"NoResultStaysUnknown", "", {}, Health::kUnknown, 0},
        PatternCase{"FirstSuccessDecidesUp", "S", {}, Health::kUp, 0},
        PatternCase{"FirstFailureDecidesDown", "F", {}, Health::kDown, 0},
        PatternCase{"TwoFailuresKeepUp", "SFF", {}, Health::kUp, 0},
        PatternCase{"ThreeFailuresGoDown", "SFFF", {}, Health::kDown, 1},
        PatternCase{
            "InterleavedFailuresKeepUp", "SFFSFFSFF", {}, Health::kUp, 0},
        PatternCase{"FourSuccessesKeepDown", "FSSSS", {}, Health::kDown, 0},
        PatternCase{"FiveSuccessesGoUp", "FSSSSS", {}, Health::kUp, 1},
        PatternCase{
            "FailureResetsSuccessStreak", "FSSSSFSSSS", {}, Health::kDown, 0},
        PatternCase{"AlternatingFromUpNeverFlaps",
                    "SFSFSFSFSFSFSFSF",
                    {},
                    Health::kUp,
                    0},
        PatternCase{"AlternatingFromDownNeverFlaps",
                    "FSFSFSFSFSFSFSFS",
                    {},
                    Health::kDown,
                    0},
        PatternCase{"FullCycleCountsTwoFlaps", "SFFFSSSSS", {}, Health::kUp, 2},
        PatternCase{"ThresholdOneFollowsEveryResult", "SFSF", Thresholds(1, 1),
                    Health::kDown, 3},
        PatternCase{"ZeroThresholdActsAsOne", "SFS", Thresholds(0, 0),
                    Health::kUp, 2},
        PatternCase{"CustomThresholds", "SFFSSFFFFS", Thresholds(4, 2),
                    Health::kDown, 1}),
    [](const auto& c) { return std::string(c.param.name); });

TEST(HealthTrackerTest, StartsUnknownWithNothingMeasured) {
  HealthTracker t;
  EXPECT_EQ(t.state(), Health::kUnknown);
  EXPECT_FALSE(t.latency_ms());
  EXPECT_FALSE(t.load());
  EXPECT_EQ(t.changed_at_ms(), 0);
  NodeStatus s = t.ToStatus();
  EXPECT_EQ(s.health, Health::kUnknown);
  EXPECT_EQ(s.health_changed_at_ms, 0);
}

TEST(HealthTrackerTest, ReportsTheTransitionOnTheDecidingProbe) {
  HealthPolicy p;
  HealthTracker t;
  Transition first = t.Observe(Probe('S', 1000), p);
  EXPECT_EQ(first.from, Health::kUnknown);
  EXPECT_EQ(first.to, Health::kUp);
  EXPECT_TRUE(first.changed);
  EXPECT_EQ(t.changed_at_ms(), 1000);

  EXPECT_FALSE(t.Observe(Probe('F', 2000), p).changed);
  EXPECT_FALSE(t.Observe(Probe('F', 3000), p).changed);
  EXPECT_EQ(t.consecutive_failures(), 2u);
  EXPECT_EQ(t.last_error(), "connect: refused");
  Transition down = t.Observe(Probe('F', 4000), p);
  EXPECT_EQ(down.from, Health::kUp);
  EXPECT_EQ(down.to, Health::kDown);
  EXPECT_TRUE(down.changed);
  EXPECT_EQ(t.changed_at_ms(), 4000);
  EXPECT_EQ(t.ToStatus().health_changed_at_ms, 4000);

  t.Observe(Probe('S', 5000), p);
  EXPECT_EQ(t.consecutive_successes(), 1u);
  EXPECT_EQ(t.consecutive_failures(), 0u);
  EXPECT_EQ(t.last_error(), "");
}

TEST(HealthTrackerTest, IgnoresOutOfOrderAndReplayedResults) {
  HealthPolicy p;
  HealthTracker t;
  t.Observe(Probe('S', 1000), p);
  t.Observe(Probe('F', 3000), p);
  Transition late = t.Observe(Probe('F', 2000), p);  // older: ignored
  EXPECT_FALSE(late.changed);
  EXPECT_EQ(late.to, Health::kUp);
  EXPECT_FALSE(t.Observe(Probe('F', 3000), p).changed);  // replay: ignored
  EXPECT_EQ(t.consecutive_failures(), 1u);
  t.Observe(Probe('F', 4000), p);
  EXPECT_EQ(t.state(), Health::kUp);
  t.Observe(Probe('F', 5000), p);
  EXPECT_EQ(t.state(), Health::kDown);
}

ProbeResult Timed(double latency_ms, int64_t at_ms) {
  ProbeResult r = Probe('S', at_ms);
  r.latency_ms = latency_ms;
  return r;
}

struct LatencyCase {
  const char* name;
  size_t window;
  double decay;
  std::vector<double> samples;
  double want;
};

void PrintTo(const LatencyCase& c, std::ostream* os) { *os << c.name; }

class LatencyTest : public ::testing::TestWithParam<LatencyCase> {};

TEST_P(LatencyTest, SmoothsOverTheWindow) {
  const LatencyCase& c = GetParam();
  HealthPolicy p;
  p.latency_window = c.window;
  p.latency_decay = c.decay;
  HealthTracker t;
  int64_t at = 0;
  for (double sample : c.samples) t.Observe(Timed(sample, at += 1000), p);
  ASSERT_TRUE(t.latency_ms());
  EXPECT_DOUBLE_EQ(*t.latency_ms(), c.want);
  EXPECT_DOUBLE_EQ(*t.ToStatus().latency_ms, c.want);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, LatencyTest,
    ::testing::Values(
        LatencyCase{"SingleSample", 8, 0, {42}, 42},
        LatencyCase{"MeanBeforeWindowFills", 8, 0, {10, 20, 30}, 20},
        LatencyCase{"KeepsLastFive", 5, 0, {10, 20, 30, 40, 50, 60, 70}, 50},
        LatencyCase{
            "WindowBelowFiveClampsToFive", 2, 0, {100, 10, 20, 30, 40, 50}, 30},
        LatencyCase{"WindowAboveTenClampsToTen",
                    100,
                    0,
                    {1000, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10},
                    5.5},
        // Newest weighs 1, then 0.5, 0.25: (30 + 10 + 2.5) / 1.75.
        LatencyCase{"DecayWeightsNewest", 8, 0.5, {10, 20, 30}, 42.5 / 1.75},
        // 100 fell out of the window of 5; weights 1, .5, .25, .125, .0625.
        LatencyCase{
            "DecayWithinWindow",
            5,
            0.5,
            {100, 16, 16, 16, 16, 32},
            (32 + 0.5 * 16 + 0.25 * 16 + 0.125 * 16 + 0.0625 * 16) / 1.9375},
        LatencyCase{"DecayOfOneIsPlainMean", 5, 1.0, {10, 20, 30}, 20},
        LatencyCase{"NegativeDecayIsPlainMean", 5, -0.5, {10, 20, 30}, 20}),
    [](const auto& c) { return std::string(c.param.name); });

TEST(HealthTrackerTest, LatencyOnlyFromSuccessfulProbes) {
  HealthPolicy p;
  HealthTracker t;
  t.Observe(Timed(10, 1000), p);
  ProbeResult failed = Probe('F', 2000);
  failed.latency_ms = 2000;  // a timeout's duration is not a latency
  t.Observe(failed, p);
  ProbeResult bogus = Timed(-1, 3000);
  t.Observe(bogus, p);
  t.Observe(Timed(30, 4000), p);
  ASSERT_TRUE(t.latency_ms());
  EXPECT_DOUBLE_EQ(*t.latency_ms(), 20);
}

TEST(HealthTrackerTest, KeepsLatestLoad) {
  HealthPolicy p;
  HealthTracker t;
  ProbeResult r = Probe('S', 1000);
  r.load = NodeLoad{100, 10};
  t.Observe(r, p);
  t.Observe(Probe('S', 2000), p);  // no load: keep the last one
  ASSERT_TRUE(t.load());
  EXPECT_DOUBLE_EQ(t.load()->bandwidth_mbps, 100);
  r.at_ms = 3000;
  r.load = NodeLoad{250, 40};
  t.Observe(r, p);
  EXPECT_DOUBLE_EQ(t.ToStatus().load->bandwidth_mbps, 250);
  EXPECT_DOUBLE_EQ(t.ToStatus().load->connections, 40);
}

TEST(HealthTrackerTest, KeepsLatestErrorRate) {
  HealthPolicy p;
  HealthTracker t;
  EXPECT_FALSE(t.ToStatus().error_rate);
  ProbeResult r = Probe('S', 1000);
  r.error_rate = 0.02;
  t.Observe(r, p);
  t.Observe(Probe('S', 2000), p);  // a body without one: keep the last one
  EXPECT_EQ(t.error_rate(), 0.02);
  r.at_ms = 3000;
  r.error_rate = 0.0;
  t.Observe(r, p);
  EXPECT_EQ(t.ToStatus().error_rate, 0.0);
}

HealthPolicy WithoutDamping(HealthPolicy p) {
  p.damping.enabled = false;
  return p;
}

TEST(HealthTrackerTest, AntiFlapUnderRandomFailures) {
  // 1000 probes one second apart failing 30% of the time. Raw mt19937 output
  // is specified by the standard, so the sequence is the same with every
  // standard library.
  std::mt19937 rng(20240601);
  std::string pattern;
  for (int i = 0; i < 1000; ++i) pattern += rng() % 10 < 3 ? 'F' : 'S';

  const uint32_t naive =
      Replay(pattern, WithoutDamping(Thresholds(1, 1))).transitions();
  const uint32_t thresholds =
      Replay(pattern, WithoutDamping(HealthPolicy{})).transitions();
  const HealthTracker damped = Replay(pattern, HealthPolicy{});
  // Threshold 1 flips on every S/F boundary: expected 2 * 0.3 * 0.7 * 1000
  // = 420. Fail-3 needs a run of three failures (0.3^3 = 2.7% per start,
  // ~19 runs in 1000 probes) and each comes back after five successes, so
  // ~38 transitions are expected: thresholds alone still flap every ~60 s.
  // This seed: 295 failures, 409 naive and 32 threshold transitions; the
  // bounds leave room only for a changed rule.
  EXPECT_GE(naive, 380u);
  EXPECT_GE(thresholds, 24u);
  EXPECT_LE(thresholds, 40u);
  // Damping: the third Up -> Down within a half-life (15 min) crosses the
  // suppress limit, so at most Down, Up, Down, Up, Down, then held.
  EXPECT_EQ(damped.transitions(), 5u);
  EXPECT_EQ(damped.state(), Health::kDown);
  EXPECT_TRUE(damped.suppressed());
}

// Three full cycles of three failures then five successes, one second apart.
constexpr char kThreeFlaps[] = "SFFFSSSSSFFFSSSSSFFF";

TEST(FlapDampingTest, OneOutageRecoversAfterTheThresholdAlone) {
  HealthTracker t = Replay("SFFFSSSSS", HealthPolicy{});
  EXPECT_EQ(t.state(), Health::kUp);
  EXPECT_FALSE(t.suppressed());
  EXPECT_GT(t.flap_penalty(), 990);  // 1000, decayed for five seconds
  EXPECT_LT(t.flap_penalty(), 1000);
}

TEST(FlapDampingTest, TwoOutagesRecoverToo) {
  HealthTracker t = Replay("SFFFSSSSSFFFSSSSS", HealthPolicy{});
  EXPECT_EQ(t.state(), Health::kUp);
  EXPECT_EQ(t.transitions(), 4u);
  EXPECT_FALSE(t.suppressed());
  EXPECT_LT(t.flap_penalty(), HealthTracker::kSuppressLimit);
}

TEST(FlapDampingTest, HoldsDownAfterTheThirdFlapUntilThePenaltyDecays) {
  HealthPolicy p;
  p.damping.half_life_ms = 60'000;
  p.damping.max_suppress_ms = 240'000;
  HealthTracker t = Replay(kThreeFlaps, p);
  ASSERT_EQ(t.state(), Health::kDown);
  ASSERT_TRUE(t.suppressed());
  const double penalty = t.flap_penalty();
  const int64_t down_at = t.changed_at_ms();
  EXPECT_EQ(down_at, 20'000);
  // Sum of the three penalties decayed with a 60 s half-life, 8 s apart.
  const double want = 1000 * (1 + std::exp2(-8 / 60.0) + std::exp2(-16 / 60.0));
  EXPECT_NEAR(penalty, want, 1e-6);

  // Back under the reuse limit after half_life * log2(penalty / 750).
  const int64_t release_at =
      down_at + static_cast<int64_t>(std::ceil(
                    60'000 * std::log2(penalty / HealthTracker::kReuseLimit)));
  int64_t at = down_at;
  for (; at + 1000 < release_at; at += 1000) {
    EXPECT_FALSE(t.Observe(Probe('S', at + 1000), p).changed) << at;
    EXPECT_TRUE(t.suppressed());
  }
  // The first success after release brings it Up: the streak is long done.
  Transition up = t.Observe(Probe('S', release_at), p);
  EXPECT_TRUE(up.changed);
  EXPECT_EQ(up.to, Health::kUp);
  EXPECT_FALSE(t.suppressed());
}

TEST(FlapDampingTest, ReleaseStillNeedsTheSuccessThreshold) {
  HealthPolicy p = Thresholds(3, 2);
  p.damping.half_life_ms = 1000;
  p.damping.max_suppress_ms = 4000;
  HealthTracker t;
  int64_t at = 0;
  for (char c : std::string("SFFFSSFFFSSFFF")) t.Observe(Probe(c, at += 10), p);
  ASSERT_EQ(t.transitions(), 5u);
  ASSERT_TRUE(t.suppressed());
  // Five half-lives later the hold is over, but a failure keeps it Down and
  // the success threshold counts from there.
  t.Observe(Probe('F', at += 5000), p);
  EXPECT_FALSE(t.suppressed());
  EXPECT_EQ(t.state(), Health::kDown);
  EXPECT_FALSE(t.Observe(Probe('S', at += 10), p).changed);
  EXPECT_TRUE(t.Observe(Probe('S', at += 10), p).changed);
  EXPECT_EQ(t.state(), Health::kUp);
}

TEST(FlapDampingTest, CeilingBoundsTheHoldToMaxSuppress) {
  HealthPolicy p = Thresholds(1, 1);
  p.damping.half_life_ms = 10'000;
  p.damping.max_suppress_ms = 30'000;
  HealthTracker t;
  int64_t at = 0;
  // Fifty flaps in quick succession: uncapped, the penalty would reach 50000.
  for (int i = 0; i < 50; ++i) {
    t.Observe(Probe('S', at += 1), p);
    t.Observe(Probe('F', at += 1), p);
  }
  ASSERT_TRUE(t.suppressed());
  EXPECT_NEAR(t.flap_penalty(), 750.0 * 8, 1e-6);  // reuse * 2^(30 s / 10 s)
  t.Observe(Probe('S', at + 29'990), p);
  EXPECT_EQ(t.state(), Health::kDown);
  t.Observe(Probe('S', at + 30'001), p);
  EXPECT_EQ(t.state(), Health::kUp);
}

TEST(FlapDampingTest, DisabledNeverHolds) {
  HealthPolicy p;
  p.damping.enabled = false;
  HealthTracker t = Replay(std::string(kThreeFlaps) + "SSSSS", p);
  EXPECT_EQ(t.state(), Health::kUp);
  EXPECT_EQ(t.transitions(), 6u);
  EXPECT_FALSE(t.suppressed());
  EXPECT_EQ(t.flap_penalty(), 0);
}

TEST(HealthPolicyTest, FromHealthCheckCopiesThresholds) {
  HealthCheck check;
  check.failure_threshold = 2;
  check.success_threshold = 7;
  HealthPolicy p = HealthPolicy::FromHealthCheck(check);
  EXPECT_EQ(p.failure_threshold, 2u);
  EXPECT_EQ(p.success_threshold, 7u);
  EXPECT_EQ(p.EffectiveLatencyWindow(), 8u);
  HealthPolicy defaults = HealthPolicy::FromHealthCheck(HealthCheck{});
  EXPECT_EQ(defaults.failure_threshold, 3u);
  EXPECT_EQ(defaults.success_threshold, 5u);
  EXPECT_TRUE(defaults.damping.enabled);
  EXPECT_EQ(defaults.damping.half_life_ms, 15u * 60 * 1000);
  check.flap_damping = {
      .enabled = false, .half_life_ms = 1, .max_suppress_ms = 2};
  p = HealthPolicy::FromHealthCheck(check);
  EXPECT_FALSE(p.damping.enabled);
  EXPECT_EQ(p.damping.half_life_ms, 1u);
  EXPECT_EQ(p.damping.max_suppress_ms, 2u);
}

TEST(HealthNameTest, NamesEveryState) {
  EXPECT_STREQ(HealthName(Health::kUnknown), "Unknown");
  EXPECT_STREQ(HealthName(Health::kUp), "Up");
  EXPECT_STREQ(HealthName(Health::kDown), "Down");
}

}  // namespace
}  // namespace ax
