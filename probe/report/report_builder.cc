// NodeProbeState -> ProbeNodeReport, field by field (report_builder.h).
#include "report/report_builder.h"

#include "engine/probe_error.h"

namespace ax::probe {
namespace {

ProbeNodeReport NodeReport(const std::string& node,
                           const NodeProbeState& state) {
  ProbeNodeReport r;
  r.node = node;
  r.health = state.status.health;
  r.latency_ms = state.status.latency_ms;
  r.load = state.status.load;
  r.error_rate = state.status.error_rate;
  r.health_changed_at_ms = state.status.health_changed_at_ms;
  r.consecutive_failures = state.consecutive_failures;
  r.consecutive_successes = state.consecutive_successes;
  r.transitions = state.transitions;
  r.suppressed = state.suppressed;
  r.flap_penalty = state.flap_penalty;
  if (state.last) {
    const ProbeOutcome& last = *state.last;
    r.up = last.ok();
    r.phases = {.connect_ms = last.phases.connect_ms,
                .tls_ms = last.phases.tls_ms,
                .first_byte_ms = last.phases.first_byte_ms,
                .total_ms = last.phases.total_ms};
    if (!last.ok()) {
      r.error = ProbeErrorName(last.error);
      r.error_detail = last.detail;
    }
  }
  return r;
}

}  // namespace

ProbeReport BuildReport(const std::vector<std::string>& nodes,
                        const std::map<std::string, NodeProbeState>& states,
                        const std::string& vantage, int64_t now_ms) {
  ProbeReport report;
  report.name = ProbeReportName(vantage);
  report.vantage = vantage;
  report.observed_at_ms = now_ms;
  report.results.reserve(nodes.size());
  for (const std::string& node : nodes) {
    const auto it = states.find(node);
    if (it == states.end()) {
      report.results.push_back({.node = node});
    } else {
      report.results.push_back(NodeReport(node, it->second));
    }
  }
  return report;
}

HealthKey HealthKeyOf(const ProbeReport& report) {
  HealthKey key;
  for (const ProbeNodeReport& r : report.results) key[r.node] = r.health;
  return key;
}

bool FirstRoundDone(const std::vector<std::string>& nodes,
                    const std::map<std::string, NodeProbeState>& states) {
  for (const std::string& node : nodes) {
    const auto it = states.find(node);
    if (it == states.end() || it->second.status.health == Health::kUnknown) {
      return false;
    }
  }
  return true;
}

}  // namespace ax::probe
