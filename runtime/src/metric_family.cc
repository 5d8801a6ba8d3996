// Family and AddSample (metric_family.h).
#include "ax/runtime/metric_family.h"

#include <utility>

namespace ax::runtime {

prometheus::MetricFamily Family(std::string name, std::string help,
                                prometheus::MetricType type) {
  return {std::move(name), std::move(help), type, {}};
}

void AddSample(prometheus::MetricFamily& family, double value,
               MetricLabels labels) {
  prometheus::ClientMetric m;
  m.label = std::move(labels);
  if (family.type == prometheus::MetricType::Counter) {
    m.counter.value = value;
  } else {
    m.gauge.value = value;
  }
  family.metric.push_back(std::move(m));
}

}  // namespace ax::runtime
