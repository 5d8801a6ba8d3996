// Prometheus instant-query replies as the Canary analysis reads them: one
// series' value, no data (an empty result, NaN), and errors that say what
// Prometheus or the reply got wrong. The reader against a real Prometheus is
// tests/integration/test_canary_prometheus.py.
#include "ax/signals/prometheus_reply.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

namespace ax::signals {
namespace {

using ::testing::HasSubstr;

using controller::MetricReading;

MetricReading Parse(std::string_view body, int status = 200) {
  return ParsePrometheusReply(status, body, 42);
}

TEST(PrometheusReply, OneSeriesGivesItsValue) {
  MetricReading r = Parse(R"({"status":"success","data":{"resultType":"vector",
      "result":[{"metric":{"node":"gz-02"},"value":[1796014415.2,"0.0125"]}]}})");
  EXPECT_EQ(r.value, 0.0125);
  EXPECT_EQ(r.at_ms, 42);
  EXPECT_EQ(r.error, "");
  r = Parse(R"({"status":"success","data":{"resultType":"scalar",
      "result":[1796014415.2,"3"]}})");
  EXPECT_EQ(r.value, 3);
  r = Parse(R"({"status":"success","data":{"resultType":"vector",
      "result":[{"metric":{},"value":[1,"+Inf"]}]}})");
  EXPECT_TRUE(r.value && std::isinf(*r.value));  // a breach, not "no data"
}

TEST(PrometheusReply, NoDataIsNoValue) {
  MetricReading r = Parse(
      R"({"status":"success","data":{"resultType":"vector","result":[]}})");
  EXPECT_FALSE(r.value);
  EXPECT_EQ(r.error, "no data: the query gives no series");
  r = Parse(R"({"status":"success","data":{"resultType":"vector",
      "result":[{"metric":{},"value":[1,"NaN"]}]}})");
  EXPECT_FALSE(r.value);
  EXPECT_THAT(r.error, HasSubstr("NaN"));
}

TEST(PrometheusReply, ErrorsSayWhat) {
  EXPECT_EQ(
      Parse(R"({"status":"error","errorType":"bad_data",
      "error":"1:5: parse error: unexpected \"}\""})",
            400)
          .error,
      "Prometheus HTTP 400: bad_data: 1:5: parse error: unexpected \"}\"");
  EXPECT_EQ(Parse("<html>proxy</html>", 502).error,
            "Prometheus HTTP 502: the reply is not JSON");
  EXPECT_EQ(Parse(R"({"status":"success","data":{"resultType":"vector",
      "result":[{"value":[1,"1"]},{"value":[1,"2"]}]}})")
                .error,
            "the query gives 2 series; aggregate them to one, e.g. sum(...)");
  EXPECT_EQ(Parse(R"({"status":"success","data":{"resultType":"matrix",
      "result":[]}})")
                .error,
            "the query gives a matrix, not one instant value");
  EXPECT_THAT(Parse(R"({"status":"success","data":{"resultType":"vector",
      "result":[{"value":[1,"x1"]}]}})")
                  .error,
              HasSubstr("value \"x1\" is no number"));
}

}  // namespace
}  // namespace ax::signals
