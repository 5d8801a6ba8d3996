// The pure probe scheduler against a fake clock (plain integers) and a seeded
// RNG: cold start, cadence and jitter bounds, the in-flight bound, deadlines,
// removal and one probe per node; and its due/deadline indexes against a
// brute-force model under random changes.
#include "engine/scheduler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace ax::probe {
namespace {

using Nodes = std::vector<std::pair<std::string, NodeTiming>>;

SchedulerConfig Config(size_t max_in_flight = 64, double jitter = 0.1,
                       int64_t spread = 200) {
  SchedulerConfig c;
  c.max_in_flight = max_in_flight;
  c.jitter_fraction = jitter;
  c.cold_start_spread_ms = spread;
  return c;
}

Nodes MakeNodes(int n, int64_t interval = 1000, int64_t timeout = 300) {
  Nodes nodes;
  for (int i = 0; i < n; ++i) {
    nodes.emplace_back("n" + std::to_string(i), NodeTiming{interval, timeout});
  }
  return nodes;
}

// Drives the scheduler millisecond by millisecond; every started probe
// completes `probe_ms` later. Returns each node's start times.
std::map<std::string, std::vector<int64_t>> Simulate(Scheduler& s, Rng& rng,
                                                     int64_t from, int64_t to,
                                                     int64_t probe_ms) {
  std::map<std::string, std::vector<int64_t>> starts;
  std::multimap<int64_t, uint64_t> completions;
  for (int64_t now = from; now <= to; ++now) {
    while (!completions.empty() && completions.begin()->first <= now) {
      EXPECT_TRUE(s.Complete(completions.begin()->second, now, rng));
      completions.erase(completions.begin());
    }
    s.TakeExpired(now, rng);
    for (const Launch& l : s.TakeDue(now)) {
      starts[l.node].push_back(now);
      completions.emplace(now + probe_ms, l.probe_id);
    }
  }
  return starts;
}

TEST(SchedulerTest, ColdStartProbesEverythingWithinTheSpread) {
  Scheduler s(Config(64, 0.1, 200));
  Rng rng(7);
  s.SetNodes(MakeNodes(50, /*interval=*/10000), 1000, rng);
  std::set<std::string> started;
  std::set<int64_t> start_times;
  for (int64_t now = 1000; now < 1200; ++now) {
    for (const Launch& l : s.TakeDue(now)) {
      started.insert(l.node);
      start_times.insert(now);
    }
  }
  // Everything within 200 ms, long before the 10 s interval...
  EXPECT_EQ(started.size(), 50u);
  // ...and not all in one burst.
  EXPECT_GT(start_times.size(), 10u);
}

TEST(SchedulerTest, ZeroSpreadStartsAtOnce) {
  Scheduler s(Config(64, 0.1, 0));
  Rng rng(1);
  s.SetNodes(MakeNodes(3), 500, rng);
  EXPECT_EQ(s.TakeDue(500).size(), 3u);
}

TEST(SchedulerTest, PeriodIsIntervalPlusBoundedJitter) {
  Scheduler s(Config(64, 0.2, 100));
  Rng rng(42);
  s.SetNodes(MakeNodes(20, /*interval=*/1000, /*timeout=*/300), 0, rng);
  const auto starts = Simulate(s, rng, 0, 20000, /*probe_ms=*/5);
  std::set<int64_t> gaps;
  for (const auto& [node, times] : starts) {
    ASSERT_GE(times.size(), 16u) << node;
    for (size_t i = 1; i < times.size(); ++i) {
      const int64_t gap = times[i] - times[i - 1];
      EXPECT_GE(gap, 1000) << node;  // never more than one per interval
      EXPECT_LT(gap, 1200) << node;  // interval * (1 + 0.2)
      gaps.insert(gap);
    }
  }
  EXPECT_GT(gaps.size(), 20u);  // the jitter really varies
}

TEST(SchedulerTest, SlowProbesKeepTheCadenceFromTheStart) {
  Scheduler s(Config(64, 0.0, 0));
  Rng rng(3);
  s.SetNodes(MakeNodes(1, 1000, 900), 0, rng);
  const auto starts = Simulate(s, rng, 0, 5500, /*probe_ms=*/800);
  EXPECT_EQ(starts.at("n0"),
            (std::vector<int64_t>{0, 1000, 2000, 3000, 4000, 5000}));
}

TEST(SchedulerTest, InFlightIsBounded) {
  Scheduler s(Config(/*max_in_flight=*/4, 0.1, 0));
  Rng rng(5);
  s.SetNodes(MakeNodes(10), 0, rng);
  auto first = s.TakeDue(0);
  EXPECT_EQ(first.size(), 4u);
  EXPECT_EQ(s.in_flight(), 4u);
  EXPECT_TRUE(s.TakeDue(1).empty());
  // While full, only deadlines wake the caller, not due times.
  EXPECT_EQ(s.NextWakeMs(), 300);
  ASSERT_TRUE(s.Complete(first[0].probe_id, 2, rng));
  ASSERT_TRUE(s.Complete(first[1].probe_id, 2, rng));
  EXPECT_EQ(s.TakeDue(2).size(), 2u);
  EXPECT_EQ(s.in_flight(), 4u);

  // Over a long run the bound always holds and every node gets its turn.
  const auto starts = Simulate(s, rng, 3, 10000, /*probe_ms=*/100);
  EXPECT_EQ(starts.size(), 10u);
  EXPECT_LE(s.in_flight(), 4u);
}

TEST(SchedulerTest, AFullPoolServesTheOldestDueFirst) {
  Scheduler s(Config(1, 0.0, 0));
  Rng rng(9);
  s.Upsert("late", {1000, 300}, 50, rng);
  s.Upsert("early", {1000, 300}, 10, rng);
  const auto launches = s.TakeDue(100);
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_EQ(launches[0].node, "early");
}

TEST(SchedulerTest, DeadlineExpiresAStuckProbeWithoutDelayingOthers) {
  Scheduler s(Config(2, 0.0, 0));
  Rng rng(11);
  s.Upsert("stuck", {1000, 300}, 0, rng);
  s.Upsert("fast", {100, 50}, 0, rng);
  auto launches = s.TakeDue(0);
  ASSERT_EQ(launches.size(), 2u);
  const Launch stuck = launches[0].node == "stuck" ? launches[0] : launches[1];
  const Launch fast = launches[0].node == "fast" ? launches[0] : launches[1];
  EXPECT_EQ(stuck.deadline_ms, 300);

  // The fast node keeps its cadence while the stuck one hangs.
  ASSERT_TRUE(s.Complete(fast.probe_id, 5, rng));
  const auto again = s.TakeDue(100);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].node, "fast");
  ASSERT_TRUE(s.Complete(again[0].probe_id, 105, rng));
  EXPECT_TRUE(s.TakeExpired(299, rng).empty());

  const auto expired = s.TakeExpired(300, rng);
  ASSERT_EQ(expired.size(), 1u);
  EXPECT_EQ(expired[0].node, "stuck");
  EXPECT_EQ(expired[0].probe_id, stuck.probe_id);
  // A late answer from the expired probe is discarded...
  EXPECT_FALSE(s.Complete(stuck.probe_id, 400, rng));
  // ...and the next probe of the stuck node comes one interval after its
  // previous start.
  EXPECT_EQ(s.NextDueMs("stuck"), 1000);
}

TEST(SchedulerTest, RemovalStopsProbingAndDiscardsTheInFlightResult) {
  Scheduler s(Config(64, 0.0, 0));
  Rng rng(13);
  s.SetNodes(MakeNodes(3), 0, rng);
  const auto launches = s.TakeDue(0);
  ASSERT_EQ(launches.size(), 3u);
  uint64_t n1_id = 0;
  for (const auto& l : launches) {
    if (l.node == "n1") n1_id = l.probe_id;
  }

  Nodes keep = MakeNodes(3);
  keep.erase(keep.begin() + 1);  // drop n1
  const auto cancelled = s.SetNodes(keep, 10, rng);
  EXPECT_EQ(cancelled, std::vector<uint64_t>{n1_id});
  EXPECT_FALSE(s.contains("n1"));
  EXPECT_EQ(s.in_flight(), 2u);
  EXPECT_FALSE(s.Complete(n1_id, 20, rng));

  const auto starts = Simulate(s, rng, 20, 5000, 5);
  EXPECT_FALSE(starts.count("n1"));
  EXPECT_TRUE(starts.count("n0"));
  EXPECT_TRUE(starts.count("n2"));
  EXPECT_EQ(s.Remove("n1"), 0u);
}

TEST(SchedulerTest, OneProbePerNodeHoweverOftenItIsListed) {
  Scheduler s(Config(64, 0.1, 50));
  Rng rng(17);
  // The same node used by three domains arrives three times.
  Nodes nodes = {{"edge", {1000, 300}},
                 {"edge", {500, 300}},
                 {"other", {1000, 300}},
                 {"edge", {1000, 300}}};
  s.SetNodes(nodes, 0, rng);
  EXPECT_EQ(s.size(), 2u);
  const auto starts = Simulate(s, rng, 0, 10000, 20);
  // The first listing's 1000 ms interval rules: about 10 probes, not 30.
  EXPECT_GE(starts.at("edge").size(), 9u);
  EXPECT_LE(starts.at("edge").size(), 10u);
  // Re-listing the set keeps the schedule: no extra probe.
  const auto before = s.NextDueMs("edge");
  s.SetNodes(nodes, 10001, rng);
  EXPECT_EQ(s.NextDueMs("edge"), before);
}

TEST(SchedulerTest, NeverTwoProbesOfOneNodeAtOnce) {
  Scheduler s(Config(64, 0.0, 0));
  Rng rng(19);
  s.Upsert("slow", {100, 1000}, 0, rng);
  ASSERT_EQ(s.TakeDue(0).size(), 1u);
  // Well past its interval, still running: not started again.
  EXPECT_TRUE(s.TakeDue(500).empty());
  EXPECT_EQ(s.TakeExpired(1000, rng).size(), 1u);
  // Overdue since t=100: started as soon as the old one ended.
  EXPECT_EQ(s.TakeDue(1000).size(), 1u);
}

TEST(SchedulerTest, ShorterIntervalTakesEffectWithoutWaitingTheOldOne) {
  Scheduler s(Config(64, 0.0, 0));
  Rng rng(23);
  s.Upsert("n", {60000, 300}, 0, rng);
  auto l = s.TakeDue(0);
  ASSERT_TRUE(s.Complete(l.at(0).probe_id, 10, rng));
  EXPECT_EQ(s.NextDueMs("n"), 60000);
  s.Upsert("n", {1000, 300}, 20, rng);
  EXPECT_EQ(s.NextDueMs("n"), 1020);
}

TEST(SchedulerTest, ZeroIntervalIsFloored) {
  Scheduler s(Config(64, 0.0, 0));
  Rng rng(29);
  s.Upsert("n", {0, 0}, 0, rng);
  const auto starts = Simulate(s, rng, 0, 100, 0);
  EXPECT_LE(starts.at("n").size(), 11u);
}

TEST(SchedulerTest, NextWakeIsTheEarliestDueOrDeadline) {
  Scheduler s(Config(64, 0.0, 0));
  Rng rng(31);
  EXPECT_FALSE(s.NextWakeMs().has_value());
  s.Upsert("a", {1000, 300}, 100, rng);
  EXPECT_EQ(s.NextWakeMs(), 100);
  ASSERT_EQ(s.TakeDue(100).size(), 1u);
  EXPECT_EQ(s.NextWakeMs(), 400);  // its deadline
}

// Random upserts, removals, completions, expiries and launches on a small
// pool: what TakeDue, TakeExpired and NextWakeMs say always matches what a
// scan of every node would (the scheduler keeps indexes instead).
TEST(SchedulerTest, IndexesAgreeWithAScanOfEveryNode) {
  Scheduler s(Config(/*max_in_flight=*/4, 0.1, 50));
  Rng rng(37), ops(41);
  const auto pick = [&](int n) { return static_cast<int>(ops.Uniform() * n); };
  std::map<uint64_t, std::pair<std::string, int64_t>> running;  // deadline
  std::set<std::string> known;
  for (int64_t now = 0; now < 20000; now += 1 + pick(7)) {
    const std::string node = "n" + std::to_string(pick(12));
    switch (pick(8)) {
      case 0:
        s.Upsert(node, {20 + pick(300), 1 + pick(200)}, now, rng);
        known.insert(node);
        break;
      case 1:
        if (const uint64_t id = s.Remove(node)) running.erase(id);
        known.erase(node);
        break;
      case 2:
        if (!running.empty()) {
          auto it = std::next(running.begin(), pick(running.size()));
          EXPECT_TRUE(s.Complete(it->first, now, rng));
          running.erase(it);
        }
        break;
      default:
        break;
    }
    // The model: deadlines of running probes, due times of idle nodes.
    std::optional<int64_t> wake;
    for (const auto& [id, r] : running) {
      if (!wake || r.second < *wake) wake = r.second;
    }
    for (const std::string& n : known) {
      const auto at = s.NextDueMs(n);
      if (at && running.size() < 4 && (!wake || *at < *wake)) wake = *at;
    }
    ASSERT_EQ(s.NextWakeMs(), wake) << now;
    ASSERT_EQ(s.in_flight(), running.size());

    std::set<uint64_t> overdue;
    for (const auto& [id, r] : running) {
      if (r.second <= now) overdue.insert(id);
    }
    for (const Launch& l : s.TakeExpired(now, rng)) {
      EXPECT_EQ(overdue.erase(l.probe_id), 1u) << now;
      running.erase(l.probe_id);
    }
    EXPECT_TRUE(overdue.empty()) << now;

    std::vector<std::pair<int64_t, std::string>> due;
    for (const std::string& n : known) {
      const auto at = s.NextDueMs(n);
      if (at && *at <= now) due.emplace_back(*at, n);
    }
    std::sort(due.begin(), due.end());
    const auto launches = s.TakeDue(now);
    ASSERT_LE(launches.size(), due.size()) << now;
    for (size_t i = 0; i < launches.size(); ++i) {
      EXPECT_EQ(launches[i].node, due[i].second) << now;  // oldest first
      running[launches[i].probe_id] = {launches[i].node,
                                       launches[i].deadline_ms};
    }
    EXPECT_TRUE(launches.size() == due.size() || running.size() == 4) << now;
  }
}

}  // namespace
}  // namespace ax::probe
