// Building prometheus-cpp MetricFamily values by hand, for the collectors that
// turn plain numbers into families when scraped (ax-dns, ax-probe,
// ax-operator). Rendering is openmetrics.h's.
#pragma once

#include <prometheus/metric_family.h>

#include <string>
#include <vector>

namespace ax::runtime {

using MetricLabels = std::vector<prometheus::ClientMetric::Label>;

prometheus::MetricFamily Family(std::string name, std::string help,
                                prometheus::MetricType type);

// One sample: the counter's or the gauge's value, by the family's type.
void AddSample(prometheus::MetricFamily& family, double value,
               MetricLabels labels = {});

}  // namespace ax::runtime
