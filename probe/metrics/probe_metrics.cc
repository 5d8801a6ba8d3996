// ProbeMetrics (probe_metrics.h): histogram cells filled from the sink,
// everything else read from ProbeEngine::Snapshot/Counters when scraped.
#include "metrics/probe_metrics.h"

#include <algorithm>
#include <limits>
#include <set>

#include "ax/runtime/metric_family.h"
#include "engine/outcome.h"
#include "engine/probe_error.h"

namespace ax::probe {
namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;
using Labels = runtime::MetricLabels;
using runtime::Family;

double HealthState(Health h) {
  switch (h) {
    case Health::kUp:
      return kHealthStateUp;
    case Health::kDown:
      return kHealthStateDown;
    case Health::kUnknown:
      break;
  }
  return kHealthStateUnknown;
}

}  // namespace

ProbeMetrics::ProbeMetrics(std::string vantage)
    : vantage_(std::move(vantage)) {}

void ProbeMetrics::Observe(const ProbeEvent& event) {
  const std::vector<PhaseDuration> phases =
      PhaseDurations(event.outcome.phases);
  std::lock_guard lock(mu_);
  for (const PhaseDuration& p : phases) {
    Histogram& h = durations_[{event.node, p.phase}];
    const double seconds = p.ms / 1000.0;
    const auto bucket = std::lower_bound(kProbeDurationBounds.begin(),
                                         kProbeDurationBounds.end(), seconds) -
                        kProbeDurationBounds.begin();
    ++h.buckets[static_cast<size_t>(bucket)];
    ++h.count;
    h.sum_seconds += seconds;
  }
}

std::vector<MetricFamily> ProbeMetrics::Collect() const {
  const ProbeEngine* engine = engine_.load();
  std::map<std::string, NodeProbeState> nodes;
  EngineCounters counters;
  if (engine != nullptr) {
    nodes = engine->Snapshot();
    counters = engine->Counters();
  }

  auto up = Family("ax_probe_up",
                   "1 if the node's last probe from this vantage passed, 0 "
                   "if it failed (absent until probed)",
                   MetricType::Gauge);
  auto health = Family("ax_node_health_state",
                       "the node's health verdict after fail/rise "
                       "thresholds: 0 unknown, 1 up, 2 down",
                       MetricType::Gauge);
  auto errors = Family("ax_probe_errors_total",
                       "failed probes by node and reason (timeout, refused, "
                       "connect, tls, protocol, status, body, config)",
                       MetricType::Counter);
  auto changes = Family("ax_probe_state_changes_total",
                        "health verdict changes by node, the first verdict "
                        "out of unknown included",
                        MetricType::Counter);
  auto suppressed = Family("ax_probe_flap_suppressed",
                           "1 while flap damping holds the node down after "
                           "repeated up/down changes, else 0",
                           MetricType::Gauge);
  for (const auto& [node, state] : nodes) {
    if (state.last) {
      runtime::AddSample(up, state.last->ok() ? 1 : 0,
                         {{"node", node}, {"vantage", vantage_}});
    }
    runtime::AddSample(health, HealthState(state.status.health),
                       {{"node", node}});
    for (const auto& [kind, n] : state.errors) {
      runtime::AddSample(errors, static_cast<double>(n),
                         {{"node", node}, {"reason", ProbeErrorName(kind)}});
    }
    runtime::AddSample(changes, state.state_changes, {{"node", node}});
    runtime::AddSample(suppressed, state.suppressed ? 1 : 0, {{"node", node}});
  }
  auto connections =
      Family("ax_probe_connections_total",
             "probe connections opened (at most one per node per interval)",
             MetricType::Counter);
  runtime::AddSample(connections, static_cast<double>(counters.started), {});
  auto handshakes =
      Family("ax_probe_tls_handshakes_total",
             "TLS handshakes completed by HTTPS probes", MetricType::Counter);
  runtime::AddSample(handshakes, static_cast<double>(counters.tls_handshakes),
                     {});
  auto resumptions =
      Family("ax_probe_tls_resumptions_total",
             "TLS handshakes that resumed the node's previous session "
             "(no certificate verification; a full handshake at least every "
             "few minutes and after any failed probe)",
             MetricType::Counter);
  runtime::AddSample(resumptions, static_cast<double>(counters.tls_resumed),
                     {});

  auto duration = Family("ax_probe_duration_seconds",
                         "probe time by node and phase (connect, tls, "
                         "first_byte, transfer, total)",
                         MetricType::Histogram);
  {
    std::lock_guard lock(mu_);
    for (auto it = durations_.begin(); it != durations_.end();) {
      const auto& [key, h] = *it;
      if (!nodes.count(key.first)) {
        it = durations_.erase(it);  // the node is no longer probed
        continue;
      }
      ClientMetric m;
      m.label = {{"node", key.first}, {"phase", key.second}};
      uint64_t cumulative = 0;
      for (size_t b = 0; b < h.buckets.size(); ++b) {
        cumulative += h.buckets[b];
        m.histogram.bucket.push_back(
            {cumulative, b < kProbeDurationBounds.size()
                             ? kProbeDurationBounds[b]
                             : std::numeric_limits<double>::infinity()});
      }
      m.histogram.sample_count = h.count;
      m.histogram.sample_sum = h.sum_seconds;
      duration.metric.push_back(std::move(m));
      ++it;
    }
  }

  std::vector<MetricFamily> out;
  for (auto* f : {&up, &health, &errors, &changes, &suppressed, &connections,
                  &handshakes, &resumptions, &duration}) {
    out.push_back(std::move(*f));
  }
  std::sort(out.begin(), out.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });
  return out;
}

}  // namespace ax::probe
