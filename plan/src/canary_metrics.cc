// The Canary analysis' queries and verdicts (canary_metrics.h).
#include "ax/controller/canary_metrics.h"

#include <algorithm>
#include <cstdio>

#include "ax/labels.h"

namespace ax::controller {
namespace {

constexpr char kPlaceholder[] = "{{node}}";

// Prometheus durations in whole seconds ("120s").
std::string Seconds(int64_t ms) {
  return std::to_string(std::max<int64_t>(1, ms / 1000)) + "s";
}

bool InRegions(const Canary& canary, const Region& region) {
  return canary.regions.empty() ||
         std::find(canary.regions.begin(), canary.regions.end(),
                   region.meta.name) != canary.regions.end();
}

// One signal as messages name it, with its limits.
struct Signal {
  std::string name;       // MetricVerdict::name
  std::string label;      // "metric http-5xx"
  std::string limits_at;  // "spec.analysis.metrics[http-5xx]"
  std::optional<double> max;
  std::optional<double> max_over_baseline;
  uint32_t for_ms = 0;
};

// by_node[node], null when there is none.
const MetricReading* ReadingOf(
    const std::map<std::string, MetricReading>* by_node,
    const std::string& node) {
  if (!by_node) return nullptr;
  auto it = by_node->find(node);
  return it == by_node->end() ? nullptr : &it->second;
}

MetricVerdict JudgeSignal(const Signal& signal, const std::string& canary_node,
                          const std::vector<std::string>& baseline,
                          const std::map<std::string, MetricReading>* by_node) {
  MetricVerdict v{.name = signal.name,
                  .subject = signal.label + " of Node " + canary_node};
  const MetricReading* own = ReadingOf(by_node, canary_node);
  if (own == nullptr) {
    v.missing = v.subject + " not read yet";
  } else if (!own->value) {
    v.missing =
        v.subject + ": " + (own->error.empty() ? "no data" : own->error);
  } else {
    v.canary = own->value;
    v.read_at_ms = own->at_ms;
  }
  double sum = 0;
  size_t count = 0;
  if (signal.max_over_baseline) {
    for (const std::string& b : baseline) {
      const MetricReading* r = ReadingOf(by_node, b);
      if (r == nullptr || !r->value) continue;
      sum += *r->value;
      ++count;
      v.read_at_ms = std::min(v.read_at_ms ? v.read_at_ms : r->at_ms, r->at_ms);
    }
    if (count > 0) {
      v.baseline = sum / static_cast<double>(count);
    } else if (v.missing.empty()) {
      v.missing = signal.label + ": no baseline node has a value (" +
                  std::to_string(baseline.size()) + " baseline nodes)";
    }
  }
  const std::string during =
      signal.for_ms ? " throughout the last " + Seconds(signal.for_ms) : "";
  if (v.canary && signal.max && *v.canary > *signal.max) {
    v.breach = v.subject + " is " + QuotedNumber(*v.canary) + during +
               ", above " + signal.limits_at + ".max " +
               QuotedNumber(*signal.max);
  } else if (v.canary && v.baseline &&
             *v.canary - *v.baseline > *signal.max_over_baseline) {
    v.breach = v.subject + " is " + QuotedNumber(*v.canary) + during +
               ", the baseline's " + QuotedNumber(*v.baseline) +
               ": more than " + signal.limits_at + ".maxOverBaseline " +
               QuotedNumber(*signal.max_over_baseline) + " above";
  }
  return v;
}

}  // namespace

std::string QuotedNumber(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%g", v);
  return buf;
}

std::vector<std::string> BaselineNodes(const Canary& canary, const World& world,
                                       int64_t now_ms) {
  const Domain* domain = nullptr;
  for (const Domain& d : world.domains) {
    if (d.meta.name == canary.domain) domain = &d;
  }
  std::vector<std::string> out;
  if (domain == nullptr) return out;
  for (const Region& r : world.regions) {
    if (!InRegions(canary, r)) continue;
    for (const std::string& name : r.nodes) {
      if (name == canary.node) continue;
      for (const Node& n : world.nodes) {
        if (n.meta.name == name &&
            n.AdminStateAt(now_ms) == AdminState::kActive &&
            MatchesLabels(domain->node_selector, n.meta.labels)) {
          out.push_back(name);
        }
      }
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::string NodeQuery(const CanaryMetric& metric, const std::string& node,
                      bool canary) {
  std::string q = metric.query;
  for (size_t at = q.find(kPlaceholder); at != std::string::npos;
       at = q.find(kPlaceholder, at + node.size())) {
    q.replace(at, sizeof(kPlaceholder) - 1, node);
  }
  if (metric.for_ms == 0) return q;
  // About eight points over the window, at least one a second.
  const std::string window =
      "[" + Seconds(metric.for_ms) + ":" + Seconds(metric.for_ms / 8) + "]";
  return std::string(canary ? "min_over_time((" : "max_over_time((") + q + ")" +
         window + ")";
}

std::vector<CanaryQuery> QueriesFor(const Canary& canary,
                                    const std::vector<std::string>& baseline) {
  std::vector<CanaryQuery> out;
  for (const CanaryMetric& m : canary.analysis.metrics) {
    auto add = [&](const std::string& node, bool is_canary) {
      out.push_back({canary.meta.name, m.name, node, m.prometheus,
                     NodeQuery(m, node, is_canary),
                     canary.analysis.interval_ms});
    };
    add(canary.node, true);
    if (m.max_over_baseline) {
      for (const std::string& b : baseline) add(b, false);
    }
  }
  return out;
}

std::vector<MetricVerdict> JudgeMetrics(
    const Canary& canary, const std::vector<std::string>& baseline,
    const MetricReadings* readings) {
  std::vector<MetricVerdict> out;
  for (const CanaryMetric& m : canary.analysis.metrics) {
    const std::map<std::string, MetricReading>* by_node = nullptr;
    if (readings) {
      auto it = readings->find(m.name);
      if (it != readings->end()) by_node = &it->second;
    }
    const Signal signal{.name = m.name,
                        .label = "metric " + m.name,
                        .limits_at = "spec.analysis.metrics[" + m.name + "]",
                        .max = m.max,
                        .max_over_baseline = m.max_over_baseline,
                        .for_ms = m.for_ms};
    out.push_back(JudgeSignal(signal, canary.node, baseline, by_node));
  }
  return out;
}

std::optional<MetricVerdict> JudgeErrorRate(
    const Canary& canary, const std::vector<std::string>& baseline,
    const QuorumResult& quorum) {
  const std::optional<CanaryErrorRate>& limits = canary.analysis.error_rate;
  if (!limits) return std::nullopt;
  // The quorum's rate (the freshest counted vantage's) stands for a reading
  // taken when that vantage observed it.
  std::map<std::string, MetricReading> by_node;
  auto add = [&](const std::string& node) {
    MetricReading& r = by_node[node];
    auto v = quorum.nodes.find(node);
    if (v != quorum.nodes.end() && v->second.error_rate) {
      r.value = v->second.error_rate;
      r.at_ms = v->second.error_rate_at_ms;
    } else {
      r.error = "none in its health body yet";
    }
  };
  add(canary.node);
  if (limits->max_over_baseline) {
    for (const std::string& b : baseline) add(b);
  }
  const Signal signal{.name = "errorRate",
                      .label = "reported errorRate",
                      .limits_at = "spec.analysis.errorRate",
                      .max = limits->max,
                      .max_over_baseline = limits->max_over_baseline,
                      .for_ms = 0};
  return JudgeSignal(signal, canary.node, baseline, &by_node);
}

}  // namespace ax::controller
