// The OpenMetrics 1.0 text format (and the Accept negotiation choosing it
// over Prometheus text 0.0.4) for prometheus-cpp's collected MetricFamily
// values: prometheus-cpp 1.0 only ships the 0.0.4 serializer. Counter families
// are named with their `_total` suffix (as the 0.0.4 format shows them); here
// the family is named without it and its samples with it.
#pragma once

#include <prometheus/metric_family.h>

#include <string>
#include <string_view>
#include <vector>

namespace ax::runtime {

inline constexpr char kOpenMetricsContentType[] =
    "application/openmetrics-text; version=1.0.0; charset=utf-8";
inline constexpr char kPrometheusTextContentType[] =
    "text/plain; version=0.0.4; charset=utf-8";

// True when the Accept header ranks OpenMetrics text at least as high as
// plain text (Prometheus asks for it first; curl's */* gets plain text).
bool PrefersOpenMetrics(std::string_view accept);

// # TYPE / # UNIT (for names ending _seconds or _bytes) / # HELP, the samples,
// and the closing # EOF.
std::string SerializeOpenMetrics(
    const std::vector<prometheus::MetricFamily>& families);

// A scrape's answer: OpenMetrics or Prometheus text, as `accept` prefers.
struct MetricsPage {
  std::string content_type;
  std::string body;
};
MetricsPage RenderMetrics(const std::vector<prometheus::MetricFamily>& families,
                          std::string_view accept);

}  // namespace ax::runtime
