// The probe's Prometheus metrics, written once for every program that runs a
// ProbeEngine (the ax-probe sidecar, standalone ax-dns): per-node up and
// health gauges, errors by reason, state changes and connections read from
// the engine at scrape time, plus a per-phase latency histogram fed by the
// engine's sink. Exposition (text format, HTTP) is the embedding program's.
//
// It is a prometheus::Collectable rather than families in a Registry: a
// prometheus-cpp 1.0 Registry only holds series that stay until removed by
// hand, and these must follow the engine's target set (a deleted Node's
// series vanish with it), which is only known when scraped.
#pragma once

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "engine/engine.h"

namespace ax::probe {

// Upper bounds of ax_probe_duration_seconds: 1 ms (loopback connect) to 10 s
// (beyond any sensible probe timeout).
inline constexpr std::array<double, 13> kProbeDurationBounds = {
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};

// ax_node_health_state: one number per node, for alerts like `== 2`.
inline constexpr double kHealthStateUnknown = 0;
inline constexpr double kHealthStateUp = 1;
inline constexpr double kHealthStateDown = 2;

// Families (all labelled by node unless said):
//   ax_probe_up{node,vantage}               gauge: 1 if the last probe passed
//   ax_node_health_state{node}              gauge: 0 unknown, 1 up, 2 down
//   ax_probe_duration_seconds{node,phase}   histogram: connect, tls,
//                                           first_byte, transfer, total
//   ax_probe_errors_total{node,reason}      counter: failed probes by reason
//   ax_probe_state_changes_total{node}      counter: verdict changes
//   ax_probe_connections_total              counter: probe connections opened
//   ax_probe_tls_handshakes_total           counter: TLS handshakes completed
//   ax_probe_tls_resumptions_total          counter: of which resumed a session
class ProbeMetrics : public prometheus::Collectable {
 public:
  explicit ProbeMetrics(std::string vantage);
  ProbeMetrics(const ProbeMetrics&) = delete;
  ProbeMetrics& operator=(const ProbeMetrics&) = delete;

  // The engine to read at scrape time (null: only the histogram, which is
  // empty then). Set before the engine starts and cleared before it goes.
  void SetEngine(const ProbeEngine* engine) { engine_.store(engine); }

  // Call from the engine's sink for every finished probe.
  void Observe(const ProbeEvent& event);

  // Every family above, sorted by name; nodes the engine no longer probes
  // are left out (and their histograms dropped).
  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  struct Histogram {
    std::array<uint64_t, kProbeDurationBounds.size() + 1> buckets{};  // +Inf
    uint64_t count = 0;
    double sum_seconds = 0;
  };

  const std::string vantage_;
  std::atomic<const ProbeEngine*> engine_{nullptr};
  mutable std::mutex mu_;
  // (node, phase) -> histogram; pruned of removed nodes when collected.
  mutable std::map<std::pair<std::string, std::string>, Histogram> durations_;
};

}  // namespace ax::probe
