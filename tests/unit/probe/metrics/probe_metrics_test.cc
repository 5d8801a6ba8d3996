// ProbeMetrics over a real engine probing loopback TCP listeners: families,
// labels, histogram buckets, and a removed node's series disappearing.
#include "metrics/probe_metrics.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>

#include "../engine/backends.h"
#include "wait_for.h"

namespace ax::probe {
namespace {

using namespace std::chrono_literals;
using ::ax::testing::WaitFor;

using testing::ClosedPort;
using testing::SilentListener;

ProbeTarget Tcp(const std::string& node, uint16_t port) {
  ProbeTarget t;
  t.node = node;
  t.address = *ParseIp("127.0.0.1");
  t.check.protocol = ProbeProtocol::kTcp;
  t.check.port = port;
  t.check.interval_ms = 200;
  t.check.timeout_ms = 1000;
  return t;
}

const prometheus::MetricFamily* Find(
    const std::vector<prometheus::MetricFamily>& families,
    const std::string& name) {
  for (const auto& f : families) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

std::string Label(const prometheus::ClientMetric& m, const std::string& name) {
  for (const auto& l : m.label) {
    if (l.name == name) return l.value;
  }
  return "";
}

TEST(ProbeMetricsTest, FamiliesFollowTheEngine) {
  SilentListener up;  // TCP checks pass: the kernel completes the handshake
  ProbeMetrics metrics("pod-a");
  ProbeEngine engine(EngineConfig{.seed = 7},
                     [&](const ProbeEvent& e) { metrics.Observe(e); });
  metrics.SetEngine(&engine);
  std::string error;
  ASSERT_TRUE(engine.Start(&error)) << error;
  engine.SetTargets({Tcp("open", static_cast<uint16_t>(up.port())),
                     Tcp("closed", static_cast<uint16_t>(ClosedPort()))});
  // The engine counts a probe before its event reaches the metrics: wait for
  // the metrics too (a slow run, asan's, shows the moment in between): two
  // connects to "open" timed, an error of "closed" counted.
  const auto metrics_caught_up = [&] {
    const auto now = metrics.Collect();
    const auto* durations = Find(now, "ax_probe_duration_seconds");
    const auto* errors = Find(now, "ax_probe_errors_total");
    if (!durations || !errors || errors->metric.empty()) return false;
    for (const auto& m : durations->metric) {
      if (Label(m, "node") == "open" && Label(m, "phase") == "connect") {
        return m.histogram.sample_count >= 2;
      }
    }
    return false;
  };
  ASSERT_TRUE(WaitFor([&] {
    const auto snap = engine.Snapshot();
    return snap.size() == 2 && snap.at("open").probes >= 2 &&
           snap.at("closed").probes >= 1 && metrics_caught_up();
  }));

  auto families = metrics.Collect();
  for (const char* name :
       {"ax_probe_up", "ax_node_health_state", "ax_probe_errors_total",
        "ax_probe_state_changes_total", "ax_probe_connections_total",
        "ax_probe_duration_seconds", "ax_probe_flap_suppressed",
        "ax_probe_tls_handshakes_total", "ax_probe_tls_resumptions_total"}) {
    ASSERT_NE(Find(families, name), nullptr) << name;
  }
  std::map<std::string, double> up_by_node, health_by_node;
  for (const auto& m : Find(families, "ax_probe_up")->metric) {
    EXPECT_EQ(Label(m, "vantage"), "pod-a");
    up_by_node[Label(m, "node")] = m.gauge.value;
  }
  EXPECT_EQ(up_by_node["open"], 1);
  EXPECT_EQ(up_by_node["closed"], 0);
  for (const auto& m : Find(families, "ax_node_health_state")->metric) {
    health_by_node[Label(m, "node")] = m.gauge.value;
  }
  EXPECT_EQ(health_by_node["open"], kHealthStateUp);
  EXPECT_EQ(health_by_node["closed"], kHealthStateDown);
  // Down from the first verdict is not a flap: nothing is held.
  for (const auto& m : Find(families, "ax_probe_flap_suppressed")->metric) {
    EXPECT_EQ(m.gauge.value, 0) << Label(m, "node");
  }
  const auto& errors = Find(families, "ax_probe_errors_total")->metric;
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(Label(errors[0], "node"), "closed");
  EXPECT_EQ(Label(errors[0], "reason"), "refused");
  EXPECT_GE(errors[0].counter.value, 1);
  EXPECT_GE(
      Find(families, "ax_probe_connections_total")->metric.at(0).counter.value,
      3);
  // TCP checks only: no TLS.
  EXPECT_EQ(Find(families, "ax_probe_tls_handshakes_total")
                ->metric.at(0)
                .counter.value,
            0);
  bool saw_connect = false;
  for (const auto& m : Find(families, "ax_probe_duration_seconds")->metric) {
    if (Label(m, "node") != "open" || Label(m, "phase") != "connect") continue;
    saw_connect = true;
    EXPECT_GE(m.histogram.sample_count, 2u);
    ASSERT_EQ(m.histogram.bucket.size(), kProbeDurationBounds.size() + 1);
    EXPECT_EQ(m.histogram.bucket.back().cumulative_count,
              m.histogram.sample_count);
    EXPECT_DOUBLE_EQ(m.histogram.bucket.front().upper_bound, 0.001);
  }
  EXPECT_TRUE(saw_connect);

  // A removed node's series go with it.
  engine.SetTargets({Tcp("open", up.port())});
  ASSERT_TRUE(
      WaitFor([&] { return engine.Snapshot().count("closed") == 0; }, 2s));
  families = metrics.Collect();
  for (const auto& f : families) {
    for (const auto& m : f.metric) {
      EXPECT_NE(Label(m, "node"), "closed") << f.name;
    }
  }
  engine.Stop();
  metrics.SetEngine(nullptr);
  families = metrics.Collect();
  EXPECT_TRUE(Find(families, "ax_probe_up")->metric.empty());
}

}  // namespace
}  // namespace ax::probe
