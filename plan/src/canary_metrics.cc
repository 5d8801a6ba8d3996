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
    MetricVerdict v{.name = m.name};
    const std::map<std::string, MetricReading>* by_node = nullptr;
    if (readings) {
      auto it = readings->find(m.name);
      if (it != readings->end()) by_node = &it->second;
    }
    auto reading = [&](const std::string& node) -> const MetricReading* {
      if (!by_node) return nullptr;
      auto it = by_node->find(node);
      return it == by_node->end() ? nullptr : &it->second;
    };
    const MetricReading* own = reading(canary.node);
    const std::string what = "metric " + m.name + " of Node " + canary.node;
    if (own == nullptr) {
      v.missing = what + " not read yet";
    } else if (!own->value) {
      v.missing = what + ": " + (own->error.empty() ? "no data" : own->error);
    } else {
      v.canary = own->value;
      v.read_at_ms = own->at_ms;
    }
    double sum = 0;
    size_t count = 0;
    if (m.max_over_baseline) {
      for (const std::string& b : baseline) {
        const MetricReading* r = reading(b);
        if (r == nullptr || !r->value) continue;
        sum += *r->value;
        ++count;
        v.read_at_ms =
            std::min(v.read_at_ms ? v.read_at_ms : r->at_ms, r->at_ms);
      }
      if (count > 0) {
        v.baseline = sum / static_cast<double>(count);
      } else if (v.missing.empty()) {
        v.missing = "metric " + m.name + ": no baseline node has a value (" +
                    std::to_string(baseline.size()) + " baseline nodes)";
      }
    }
    const std::string during =
        m.for_ms ? " throughout the last " + Seconds(m.for_ms) : "";
    if (v.canary && m.max && *v.canary > *m.max) {
      v.breach = what + " is " + QuotedNumber(*v.canary) + during +
                 ", above spec.analysis.metrics[" + m.name + "].max " +
                 QuotedNumber(*m.max);
    } else if (v.canary && v.baseline &&
               *v.canary - *v.baseline > *m.max_over_baseline) {
      v.breach = what + " is " + QuotedNumber(*v.canary) + during +
                 ", the baseline's " + QuotedNumber(*v.baseline) +
                 ": more than spec.analysis.metrics[" + m.name +
                 "].maxOverBaseline " + QuotedNumber(*m.max_over_baseline) +
                 " above";
    }
    out.push_back(std::move(v));
  }
  return out;
}

}  // namespace ax::controller
