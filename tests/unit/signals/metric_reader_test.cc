// MetricReader against a fake Prometheus (cpp-httplib on loopback port 0):
// each wanted query is asked at once and then at its interval, with the PromQL
// and the URL's path prefix as given; every reading calls back; queries no
// longer wanted drop their readings; an unreachable Prometheus is a reading
// with an error, not a value. The real Prometheus is the canary_prometheus
// integration suites'.
#include "ax/signals/metric_reader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "ax/runtime/net.h"
#include "wait_for.h"

namespace ax::signals {
namespace {

using ::ax::testing::WaitFor;
using ::testing::HasSubstr;

class FakePrometheus {
 public:
  FakePrometheus() {
    server_.Get("/prom/api/v1/query", [this](const httplib::Request& req,
                                             httplib::Response& res) {
      {
        std::lock_guard lock(mu_);
        asked_.push_back(req.get_param_value("query"));
      }
      res.set_content(R"({"status":"success","data":{"resultType":"vector",
          "result":[{"metric":{},"value":[1,")" +
                          std::to_string(value_.load()) + R"("]}]}})",
                      "application/json");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    serving_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::yield();
  }
  ~FakePrometheus() {
    server_.stop();
    serving_.join();
  }

  std::string url() const {
    return "http://127.0.0.1:" + std::to_string(port_) + "/prom/";
  }
  std::vector<std::string> asked() const {
    std::lock_guard lock(mu_);
    return asked_;
  }
  void set_value(int v) { value_ = v; }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread serving_;
  mutable std::mutex mu_;
  std::vector<std::string> asked_;
  std::atomic<int> value_ = 7;
};

controller::CanaryQuery Query(const std::string& url, const std::string& node,
                              int64_t interval_ms = 60'000) {
  return {.canary = "www-gz-02",
          .metric = "http-5xx",
          .node = node,
          .prometheus = url,
          .promql = "up{node=\"" + node + "\"}",
          .interval_ms = interval_ms};
}

std::optional<double> Value(const MetricReader& reader,
                            const std::string& node) {
  const CanaryReadings r = reader.Readings();
  auto c = r.find("www-gz-02");
  if (c == r.end()) return std::nullopt;
  auto m = c->second.find("http-5xx");
  if (m == c->second.end()) return std::nullopt;
  auto n = m->second.find(node);
  return n == m->second.end() ? std::nullopt : n->second.value;
}

TEST(MetricReader, ReadsWhatIsWantedAndCallsBackEachTime) {
  FakePrometheus prometheus;
  std::atomic<int> calls = 0;
  MetricReader reader([&] { ++calls; });
  reader.Start();
  EXPECT_TRUE(reader.Readings().empty());
  reader.Want({Query(prometheus.url(), "gz-02"),
               Query(prometheus.url(), "gz-01", 1000)});
  ASSERT_TRUE(WaitFor([&] { return calls >= 2; }));
  EXPECT_EQ(Value(reader, "gz-02"), 7);
  EXPECT_EQ(Value(reader, "gz-01"), 7);
  // gz-01's 1 s interval comes round again; gz-02's minute does not.
  prometheus.set_value(9);
  ASSERT_TRUE(WaitFor([&] { return Value(reader, "gz-01") == 9; }));
  EXPECT_EQ(Value(reader, "gz-02"), 7);
  const std::vector<std::string> asked = prometheus.asked();
  EXPECT_EQ(std::count(asked.begin(), asked.end(), "up{node=\"gz-02\"}"), 1);

  // No longer wanted: its reading goes; a changed query is read at once.
  controller::CanaryQuery changed = Query(prometheus.url(), "gz-02");
  changed.promql = "sum(up)";
  reader.Want({changed});
  EXPECT_FALSE(Value(reader, "gz-01"));
  ASSERT_TRUE(WaitFor([&] { return Value(reader, "gz-02") == 9; }));
  EXPECT_EQ(prometheus.asked().back(), "sum(up)");
  reader.Stop();
}

TEST(MetricReader, AnUnreachablePrometheusIsAnError) {
  // Bound and never listening: a connection is refused at once.
  runtime::Endpoint at;
  std::string error;
  ASSERT_TRUE(runtime::ParseEndpoint("127.0.0.1:0", &at, &error));
  const runtime::Fd bound = runtime::BindSocket(at, SOCK_STREAM, &error);
  ASSERT_TRUE(bound.valid()) << error;
  const int port = runtime::LocalEndpoint(bound.get()).port;
  std::atomic<int> calls = 0;
  MetricReader reader([&] { ++calls; });
  reader.Start();
  reader.Want({Query("http://127.0.0.1:" + std::to_string(port), "gz-02")});
  ASSERT_TRUE(WaitFor([&] { return calls >= 1; }));
  const controller::MetricReading r =
      reader.Readings()["www-gz-02"]["http-5xx"]["gz-02"];
  EXPECT_FALSE(r.value);
  EXPECT_THAT(r.error, HasSubstr("Prometheus http://127.0.0.1:"));
  EXPECT_GT(r.at_ms, 0);
}

}  // namespace
}  // namespace ax::signals
