// The OpenMetrics serializer on hand-built families (counter suffix, UNIT,
// escaping, histogram buckets, # EOF) and the Accept negotiation.
#include "ax/runtime/openmetrics.h"

#include <gtest/gtest.h>

#include <limits>

namespace ax::runtime {
namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;

TEST(PrefersOpenMetricsTest, FollowsTheAcceptHeader) {
  // What Prometheus sends.
  EXPECT_TRUE(PrefersOpenMetrics(
      "application/openmetrics-text;version=1.0.0,application/"
      "openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,"
      "*/*;q=0.1"));
  EXPECT_TRUE(PrefersOpenMetrics("application/openmetrics-text"));
  EXPECT_TRUE(PrefersOpenMetrics("Application/OpenMetrics-Text; q=0.9"));
  EXPECT_FALSE(PrefersOpenMetrics(""));
  EXPECT_FALSE(PrefersOpenMetrics("*/*"));
  EXPECT_FALSE(PrefersOpenMetrics("text/plain;version=0.0.4"));
  EXPECT_FALSE(
      PrefersOpenMetrics("text/plain, application/openmetrics-text;q=0.5"));
  EXPECT_FALSE(PrefersOpenMetrics("application/openmetrics-text;q=0"));
}

TEST(OpenMetricsTest, CountersGaugesAndEscaping) {
  MetricFamily counter{"ax_dns_things_total",
                       "things \"seen\"\nand \\ more",
                       MetricType::Counter,
                       {}};
  ClientMetric m;
  m.label = {{"name", "a\"b\\c\nd"}};
  m.counter.value = 42;
  counter.metric.push_back(m);
  MetricFamily gauge{"ax_dns_age_seconds", "age", MetricType::Gauge, {}};
  ClientMetric g;
  g.gauge.value = 1.5;
  gauge.metric.push_back(g);
  EXPECT_EQ(SerializeOpenMetrics({counter, gauge}),
            "# TYPE ax_dns_things counter\n"
            "# HELP ax_dns_things things \\\"seen\\\"\\nand \\\\ more\n"
            "ax_dns_things_total{name=\"a\\\"b\\\\c\\nd\"} 42\n"
            "# TYPE ax_dns_age_seconds gauge\n"
            "# UNIT ax_dns_age_seconds seconds\n"
            "# HELP ax_dns_age_seconds age\n"
            "ax_dns_age_seconds 1.5\n"
            "# EOF\n");
}

TEST(OpenMetricsTest, HistogramBucketsCountAndSum) {
  MetricFamily h{
      "ax_dns_request_duration_seconds", "", MetricType::Histogram, {}};
  ClientMetric m;
  m.label = {{"protocol", "udp"}};
  m.histogram.bucket = {
      {1, 1e-6}, {3, 1}, {4, std::numeric_limits<double>::infinity()}};
  m.histogram.sample_count = 4;
  m.histogram.sample_sum = 2.25;
  h.metric.push_back(m);
  EXPECT_EQ(
      SerializeOpenMetrics({h}),
      "# TYPE ax_dns_request_duration_seconds histogram\n"
      "# UNIT ax_dns_request_duration_seconds seconds\n"
      "ax_dns_request_duration_seconds_bucket{protocol=\"udp\",le=\"1e-06\"} "
      "1\n"
      "ax_dns_request_duration_seconds_bucket{protocol=\"udp\",le=\"1.0\"} 3\n"
      "ax_dns_request_duration_seconds_bucket{protocol=\"udp\",le=\"+Inf\"} 4\n"
      "ax_dns_request_duration_seconds_count{protocol=\"udp\"} 4\n"
      "ax_dns_request_duration_seconds_sum{protocol=\"udp\"} 2.25\n"
      "# EOF\n");
}

TEST(OpenMetricsTest, EmptyExpositionIsJustEof) {
  EXPECT_EQ(SerializeOpenMetrics({}), "# EOF\n");
}

}  // namespace
}  // namespace ax::runtime
