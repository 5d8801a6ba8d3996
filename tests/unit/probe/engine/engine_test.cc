// The engine on its own thread against real local backends: the health
// verdict follows fail 3 / rise 5 when a backend starts failing and recovers,
// a stuck node does not delay the others, removal stops probing at once, cold
// start probes immediately, a node listed many times is probed once per
// interval, and a bad CA bundle fails Start.
#include "engine/engine.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "backends.h"

namespace ax::probe {
namespace {

using namespace std::chrono_literals;
using testing::HttpBackend;
using testing::MakeTarget;
using testing::SilentListener;

// Collects the sink's events and lets the test wait for a condition on them.
class Recorder {
 public:
  ProbeSink Sink() {
    return [this](const ProbeEvent& e) {
      {
        std::lock_guard lock(mu_);
        events_[e.node].push_back(e);
      }
      cv_.notify_all();
    };
  }
  bool WaitFor(
      std::function<bool(const std::map<std::string, std::vector<ProbeEvent>>&)>
          pred,
      std::chrono::milliseconds limit = 10s) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, limit, [&] { return pred(events_); });
  }
  std::vector<ProbeEvent> Of(const std::string& node) {
    std::lock_guard lock(mu_);
    auto it = events_.find(node);
    return it == events_.end() ? std::vector<ProbeEvent>{} : it->second;
  }
  size_t Count(const std::string& node) { return Of(node).size(); }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, std::vector<ProbeEvent>> events_;
};

// A backend whose health endpoint can be switched between 200 and 500 and
// which counts the requests it got.
class SwitchableBackend {
 public:
  SwitchableBackend() {
    backend_.server().Get(
        "/healthz", [this](const httplib::Request&, httplib::Response& res) {
          ++requests_;
          if (failing_) {
            res.status = 500;
            res.set_content("broken", "text/plain");
          } else {
            res.set_content(R"({"connections": 42})", "application/json");
          }
        });
    port_ = backend_.Start();
  }
  int port() const { return port_; }
  void SetFailing(bool failing) { failing_ = failing; }
  int requests() const { return requests_; }

 private:
  HttpBackend backend_;
  int port_ = 0;
  std::atomic<bool> failing_{false};
  std::atomic<int> requests_{0};
};

ProbeTarget FastTarget(const std::string& node, ProbeProtocol protocol,
                       int port, uint32_t interval_ms = 50) {
  ProbeTarget t = MakeTarget(node, protocol, port);
  t.check.interval_ms = interval_ms;
  t.check.timeout_ms = 300;
  return t;
}

EngineConfig FastConfig() {
  EngineConfig config;
  config.seed = 1234;
  config.scheduler.cold_start_spread_ms = 20;
  config.scheduler.jitter_fraction = 0.1;
  return config;
}

bool Transitioned(const std::vector<ProbeEvent>& events, Health to,
                  size_t from_index = 0) {
  for (size_t i = from_index; i < events.size(); ++i) {
    if (events[i].transition.changed && events[i].transition.to == to) {
      return true;
    }
  }
  return false;
}

// Index of the first event at or after `from` that changed the verdict to
// `to`; the results before it are what caused it.
size_t TransitionIndex(const std::vector<ProbeEvent>& events, Health to,
                       size_t from) {
  for (size_t i = from; i < events.size(); ++i) {
    if (events[i].transition.changed && events[i].transition.to == to) return i;
  }
  return events.size();
}

TEST(EngineTest, FailThreeRiseFiveOnRealBackends) {
  SwitchableBackend flaky, steady;
  Recorder rec;
  ProbeEngine engine(FastConfig(), rec.Sink());
  std::string error;
  ASSERT_TRUE(engine.Start(&error)) << error;
  engine.SetTargets({FastTarget("flaky", ProbeProtocol::kHttp, flaky.port()),
                     FastTarget("steady", ProbeProtocol::kHttp, steady.port()),
                     FastTarget("tcp", ProbeProtocol::kTcp, steady.port())});

  // The first result decides out of Unknown.
  ASSERT_TRUE(rec.WaitFor([](const auto& ev) {
    return ev.count("flaky") && Transitioned(ev.at("flaky"), Health::kUp) &&
           ev.count("steady") && ev.count("tcp");
  }));

  flaky.SetFailing(true);
  ASSERT_TRUE(rec.WaitFor([](const auto& ev) {
    return Transitioned(ev.at("flaky"), Health::kDown);
  }));
  flaky.SetFailing(false);
  ASSERT_TRUE(rec.WaitFor([](const auto& ev) {
    const auto& e = ev.at("flaky");
    return Transitioned(e, Health::kUp,
                        TransitionIndex(e, Health::kDown, 0) + 1);
  }));
  engine.Stop();

  const std::vector<ProbeEvent> events = rec.Of("flaky");
  const size_t down = TransitionIndex(events, Health::kDown, 0);
  ASSERT_LT(down, events.size());
  // Exactly three consecutive failures took it down, none earlier...
  ASSERT_GE(down, 3u);
  for (size_t i = down - 2; i <= down; ++i) {
    EXPECT_FALSE(events[i].result.ok) << i;
    EXPECT_EQ(events[i].outcome.error, ProbeError::kStatus);
    EXPECT_EQ(events[i].outcome.http_status, 500);
  }
  EXPECT_TRUE(events[down - 3].result.ok);
  EXPECT_EQ(events[down].transition.from, Health::kUp);
  EXPECT_EQ(events[down - 1].health, Health::kUp);
  // ...and exactly five consecutive successes brought it back.
  const size_t up = TransitionIndex(events, Health::kUp, down + 1);
  ASSERT_LT(up, events.size());
  ASSERT_GE(up - down, 5u);
  for (size_t i = up - 4; i <= up; ++i) EXPECT_TRUE(events[i].result.ok) << i;
  EXPECT_FALSE(events[up - 5].result.ok);
  for (size_t i = down; i < up; ++i) EXPECT_EQ(events[i].health, Health::kDown);
  // Results carry strictly increasing times, phases and the reported load.
  for (size_t i = 1; i < events.size(); ++i) {
    EXPECT_GT(events[i].result.at_ms, events[i - 1].result.at_ms);
  }
  ASSERT_TRUE(events[up].result.load);
  EXPECT_DOUBLE_EQ(events[up].result.load->connections, 42);
  EXPECT_TRUE(events[up].outcome.phases.first_byte_ms);

  const auto snapshot = engine.Snapshot();
  ASSERT_EQ(snapshot.size(), 3u);
  const NodeProbeState& f = snapshot.at("flaky");
  EXPECT_EQ(f.status.health, Health::kUp);
  EXPECT_EQ(f.transitions, 2u);    // Up -> Down -> Up
  EXPECT_EQ(f.state_changes, 3u);  // plus Unknown -> Up
  EXPECT_EQ(f.probes, events.size());
  EXPECT_GE(f.errors.at(ProbeError::kStatus), 3u);
  EXPECT_EQ(f.failures, f.errors.at(ProbeError::kStatus));
  ASSERT_TRUE(f.last);
  EXPECT_TRUE(f.last->ok());
  EXPECT_TRUE(f.status.latency_ms);
  ASSERT_TRUE(f.status.load);
  EXPECT_EQ(snapshot.at("steady").transitions, 0u);
  EXPECT_EQ(snapshot.at("steady").status.health, Health::kUp);
  EXPECT_EQ(snapshot.at("tcp").protocol, ProbeProtocol::kTcp);
  EXPECT_EQ(engine.Statuses().at("flaky").health, Health::kUp);
}

TEST(EngineTest, AStuckNodeDoesNotDelayTheOthers) {
  SwitchableBackend good;
  SilentListener stuck;
  Recorder rec;
  EngineConfig config = FastConfig();
  config.scheduler.max_in_flight = 2;
  ProbeEngine engine(config, rec.Sink());
  std::string error;
  ASSERT_TRUE(engine.Start(&error)) << error;
  ProbeTarget hung = FastTarget("hung", ProbeProtocol::kHttp, stuck.port());
  hung.check.timeout_ms = 400;
  engine.SetTargets(
      {hung, FastTarget("good", ProbeProtocol::kHttp, good.port())});

  ASSERT_TRUE(rec.WaitFor([](const auto& ev) {
    return ev.count("hung") && ev.at("hung").size() >= 2;
  }));
  engine.Stop();
  const auto hung_events = rec.Of("hung");
  for (const auto& e : hung_events) {
    EXPECT_EQ(e.outcome.error, ProbeError::kTimeout);
    // The deadline runs from the launch (in whole ms), the phases from the
    // connect a moment later: a loaded machine puts a few ms between them.
    EXPECT_GE(*e.outcome.phases.total_ms, 390);
    EXPECT_LT(*e.outcome.phases.total_ms, 1000);
  }
  EXPECT_EQ(hung_events.back().health, Health::kDown);
  // Two hung probes took >= 800 ms; at 50 ms intervals the good node had
  // time for about 15 results meanwhile (fewer on a loaded machine).
  EXPECT_GE(rec.Count("good"), 6u);
  EXPECT_GE(engine.Counters().timeouts, 2u);
}

TEST(EngineTest, RemovedNodeStopsAtOnceAndAChangedNodeRestarts) {
  SwitchableBackend a, b;
  SilentListener stuck;
  Recorder rec;
  ProbeEngine engine(FastConfig(), rec.Sink());
  std::string error;
  ASSERT_TRUE(engine.Start(&error)) << error;
  ProbeTarget hung = FastTarget("hung", ProbeProtocol::kHttp, stuck.port());
  hung.check.timeout_ms = 2000;
  engine.SetTargets({FastTarget("a", ProbeProtocol::kHttp, a.port()),
                     FastTarget("b", ProbeProtocol::kHttp, b.port()), hung});
  ASSERT_TRUE(rec.WaitFor([](const auto& ev) {
    return ev.count("a") && ev.count("b") && ev.at("b").size() >= 3;
  }));

  // "hung" is in flight (it cannot finish for 2 s); removing it discards
  // the probe instead of waiting for it.
  engine.SetTargets({FastTarget("a", ProbeProtocol::kHttp, a.port())});
  const size_t a_before = rec.Count("a");
  ASSERT_TRUE(rec.WaitFor(
      [&](const auto& ev) { return ev.at("a").size() >= a_before + 2; }));
  const size_t b_after = rec.Count("b");
  const int b_requests = b.requests();
  // Six more of a's 50 ms intervals, and b not probed in any of them.
  const size_t a_now = rec.Count("a");
  ASSERT_TRUE(rec.WaitFor(
      [&](const auto& ev) { return ev.at("a").size() >= a_now + 6; }));
  EXPECT_EQ(rec.Count("b"), b_after);
  EXPECT_EQ(b.requests(), b_requests);
  EXPECT_EQ(rec.Count("hung"), 0u);
  EXPECT_GE(engine.Counters().discarded, 1u);
  auto snapshot = engine.Snapshot();
  EXPECT_EQ(snapshot.size(), 1u);
  EXPECT_TRUE(snapshot.count("a"));

  // Changing how "a" is probed (now at b's port) takes effect at once.
  const int b_before = b.requests();
  engine.SetTargets({FastTarget("a", ProbeProtocol::kHttp, b.port())});
  ASSERT_TRUE(
      rec.WaitFor([&](const auto&) { return b.requests() > b_before; }, 2s));
  engine.Stop();
}

TEST(EngineTest, ColdStartProbesEverythingImmediately) {
  SwitchableBackend backend;
  Recorder rec;
  EngineConfig config = FastConfig();
  config.scheduler.cold_start_spread_ms = 100;
  ProbeEngine engine(config, rec.Sink());
  std::vector<ProbeTarget> targets;
  targets.reserve(20);
  for (int i = 0; i < 20; ++i) {
    targets.push_back(FastTarget("n" + std::to_string(i), ProbeProtocol::kHttp,
                                 backend.port(), /*interval_ms=*/60000));
  }
  engine.SetTargets(targets);  // before Start: applied when the loop starts
  const auto t0 = std::chrono::steady_clock::now();
  std::string error;
  ASSERT_TRUE(engine.Start(&error)) << error;
  ASSERT_TRUE(rec.WaitFor([](const auto& ev) { return ev.size() == 20; }, 5s));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 2s);  // not after 60 s
  engine.Stop();
}

TEST(EngineTest, ANodeUsedManyTimesIsProbedOncePerInterval) {
  SwitchableBackend backend;
  Recorder rec;
  EngineConfig config = FastConfig();
  config.scheduler.cold_start_spread_ms = 0;
  ProbeEngine engine(config, rec.Sink());
  std::string error;
  ASSERT_TRUE(engine.Start(&error)) << error;
  // Three domains use the same node: it arrives three times.
  const ProbeTarget t =
      FastTarget("shared", ProbeProtocol::kHttp, backend.port(), 100);
  const auto t0 = std::chrono::steady_clock::now();
  engine.SetTargets({t, t, t});
  // Five probes within 1.05 s: the first at once, then one per 100 ms
  // interval (stretched by up to 10 % jitter), so the fifth starts 400 ms
  // after the first at the earliest; three per interval would reach five
  // within two intervals.
  ASSERT_TRUE(rec.WaitFor(
      [](const auto& ev) {
        return ev.count("shared") && ev.at("shared").size() >= 5;
      },
      1050ms));
  const auto took = std::chrono::steady_clock::now() - t0;
  engine.Stop();
  EXPECT_GE(took, 400ms);
  EXPECT_GE(backend.requests(), 5);
  // One connection per probe; the last one may not have reached the server.
  const uint64_t started = engine.Counters().started;
  EXPECT_GE(started, static_cast<uint64_t>(backend.requests()));
  EXPECT_LE(started, static_cast<uint64_t>(backend.requests()) + 1);
  EXPECT_EQ(engine.Snapshot().size(), 1u);
}

TEST(EngineTest, TargetsAndSnapshotsFromOtherThreads) {
  SwitchableBackend backend;
  Recorder rec;
  ProbeEngine engine(FastConfig(), rec.Sink());
  std::string error;
  ASSERT_TRUE(engine.Start(&error)) << error;
  const auto set_of = [&](int first, int count) {
    std::vector<ProbeTarget> targets;
    targets.reserve(count);
    for (int i = first; i < first + count; ++i) {
      targets.push_back(FastTarget("n" + std::to_string(i),
                                   ProbeProtocol::kHttp, backend.port(), 20));
    }
    return targets;
  };
  std::atomic<bool> done{false};
  std::thread reader([&] {
    while (!done) {
      (void)engine.Snapshot();
      (void)engine.Statuses();
      (void)engine.Counters();
    }
  });
  for (int round = 0; round < 50; ++round) {
    engine.SetTargets(set_of(round % 7, 5));
    std::this_thread::sleep_for(2ms);  // on purpose: probes run between sets
  }
  engine.SetTargets(set_of(100, 3));
  // The last set wins, whatever was in flight.
  ASSERT_TRUE(rec.WaitFor([](const auto& ev) {
    return ev.count("n100") && ev.count("n101") && ev.count("n102");
  }));
  done = true;
  reader.join();
  const auto snapshot = engine.Snapshot();
  ASSERT_EQ(snapshot.size(), 3u);
  EXPECT_TRUE(snapshot.count("n100"));
  EXPECT_TRUE(snapshot.count("n102"));
  engine.Stop();
}

TEST(EngineTest, StartsOnce) {
  ProbeEngine engine(FastConfig());
  std::string error;
  ASSERT_TRUE(engine.Start(&error)) << error;
  EXPECT_FALSE(engine.Start(&error));
  engine.Stop();
  EXPECT_FALSE(engine.Start(&error));
  engine.Stop();  // idempotent
}

TEST(EngineTest, ABadCaBundleFailsStart) {
  EngineConfig config;
  config.tls.ca_file = "/nonexistent/ca.pem";
  ProbeEngine engine(config);
  std::string error;
  EXPECT_FALSE(engine.Start(&error));
  EXPECT_NE(error.find("/nonexistent/ca.pem"), std::string::npos);
}

}  // namespace
}  // namespace ax::probe
