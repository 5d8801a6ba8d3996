// The operating surface of a running Service on port 0: /metrics (naming
// convention, content negotiation, counters that move with real queries),
// /v1/explain and /v1/snapshot over HTTP, the 302 redirector (Location with
// path and query, HEAD, 404, 503, X-Forwarded-For only when trusted) and the
// decision log file.
#include <gtest/gtest.h>
#include <httplib.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "ax/snapshot_json.h"
#include "dns_client.h"
#include "ops_world.h"
#include "service_fixture.h"

namespace ax::dns {
namespace {

using testing::MakeQuery;
using testing::ReadFile;
using testing::WaitFor;

class OperatingSurfaceTest : public testing::ServiceFixture {
 protected:
  // The value of one sample line ("name{labels}") of a text scrape; 0 when
  // the series is absent.
  double Sample(const std::string& series) {
    const auto res = Http().Get("/metrics");
    std::istringstream lines(res->body);
    for (std::string line; std::getline(lines, line);) {
      if (line.rfind(series + " ", 0) == 0) {
        return std::stod(line.substr(series.size() + 1));
      }
    }
    return 0;
  }
  void Query(const std::string& name, ldns_rr_type type, bool tcp = false) {
    const testing::Bytes query = MakeQuery(name, type, 7);
    if (!tcp) {
      ASSERT_TRUE(testing::UdpExchange(dns_, query).has_value());
      return;
    }
    runtime::Fd conn = testing::TcpConnect(dns_);
    testing::Bytes framed = {0, static_cast<uint8_t>(query.size())};
    framed.insert(framed.end(), query.begin(), query.end());
    ASSERT_TRUE(testing::SendAll(conn.get(), framed));
    ASSERT_TRUE(testing::ReadFrame(conn.get()).has_value());
  }
  // Serves OpsWorld from a snapshot file (CIDR-classified clients).
  void StartOpsWorld(std::vector<std::string> extra = {}) {
    const auto file = dir_ / "snapshot.json";
    testing::WriteFile(file, SerializeSnapshot(OpsWorld().Build()));
    extra.insert(extra.begin(), {"--snapshot", file.string()});
    Start(extra);
  }
  httplib::Client Redirector() const {
    const runtime::Endpoint& at = service_->redirect_address();
    return httplib::Client(FormatIp(at.ip), at.port);
  }
  static ax::testing::TestWorld OpsWorld() { return testing::OpsWorld(); }
};

TEST_F(OperatingSurfaceTest, MetricNamesFollowOneConvention) {
  ASSERT_NO_FATAL_FAILURE(
      StartStandalone({"--decision-log", "-", "--decision-log-sample", "0"}));
  Query("www.example.test.", LDNS_RR_TYPE_A);
  // ax_probe_/ax_node_: standalone probing's families (probe/metrics).
  const std::regex snake("ax_(dns|probe|node)_[a-z0-9]+(_[a-z0-9]+)*");
  std::set<std::string> names;
  for (const prometheus::MetricFamily& f : service_->metrics().Collect()) {
    names.insert(f.name);
    EXPECT_TRUE(std::regex_match(f.name, snake)) << f.name;
    const bool total = f.name.ends_with("_total");
    EXPECT_EQ(total, f.type == prometheus::MetricType::Counter) << f.name;
    if (f.type == prometheus::MetricType::Histogram ||
        std::regex_search(f.name, std::regex("duration|_age|latency"))) {
      EXPECT_TRUE(f.name.ends_with("_seconds")) << f.name;
    }
    EXPECT_FALSE(f.help.empty()) << f.name;
  }
  for (const char* required :
       {"ax_dns_queries_total", "ax_dns_answers_total",
        "ax_dns_node_answers_total", "ax_dns_fallback_answers_total",
        "ax_dns_request_duration_seconds", "ax_dns_snapshot_version",
        "ax_dns_snapshot_age_seconds", "ax_dns_snapshot_load_errors_total",
        "ax_dns_geo_lookup_failures_total", "ax_dns_rrl_limited_total",
        "ax_dns_udp_kernel_drops_total", "ax_dns_tcp_connections_total",
        "ax_dns_decision_log_records_total"}) {
    EXPECT_TRUE(names.count(required)) << required;
  }
}

TEST_F(OperatingSurfaceTest, MetricsFormatFollowsAccept) {
  ASSERT_NO_FATAL_FAILURE(StartStandalone());
  httplib::Client http = Http();
  auto res = http.Get("/metrics");
  ASSERT_EQ(res->status, 200);
  EXPECT_EQ(res->get_header_value("Content-Type"),
            "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_NE(res->body.find("# TYPE ax_dns_queries_total counter"),
            std::string::npos);
  res = http.Get("/metrics", {{"Accept",
                               "application/openmetrics-text;version=1.0.0,"
                               "text/plain;version=0.0.4;q=0.5"}});
  ASSERT_EQ(res->status, 200);
  EXPECT_EQ(res->get_header_value("Content-Type"),
            "application/openmetrics-text; version=1.0.0; charset=utf-8");
  EXPECT_NE(res->body.find("# TYPE ax_dns_queries counter"), std::string::npos);
  EXPECT_NE(res->body.find("# UNIT ax_dns_snapshot_age_seconds seconds"),
            std::string::npos);
  EXPECT_TRUE(res->body.ends_with("# EOF\n"));
}

TEST_F(OperatingSurfaceTest, CountersMoveWithQueries) {
  ASSERT_NO_FATAL_FAILURE(StartStandalone());
  const std::string udp_a =
      "ax_dns_queries_total{protocol=\"udp\",qtype=\"A\",rcode=\"NOERROR\"}";
  const std::string tcp_aaaa =
      "ax_dns_queries_total{protocol=\"tcp\",qtype=\"AAAA\",rcode=\"NOERROR\"}";
  const std::string nx =
      "ax_dns_queries_total{protocol=\"udp\",qtype=\"A\",rcode=\"NXDOMAIN\"}";
  // Without geo data every client is the catch-all region global, which
  // borrows us-west's nodes.
  const std::string answers =
      "ax_dns_answers_total{domain=\"www\",region=\"global\",source="
      "\"FallbackRegion\"}";
  const std::string fallback =
      "ax_dns_fallback_answers_total{domain=\"www\",source="
      "\"FallbackRegion\"}";
  const std::string sj01 =
      "ax_dns_node_answers_total{domain=\"www\",node=\"sj-01\"}";
  const double before[] = {Sample(udp_a),   Sample(tcp_aaaa), Sample(nx),
                           Sample(answers), Sample(fallback), Sample(sj01)};
  for (int i = 0; i < 5; ++i) Query("www.example.test.", LDNS_RR_TYPE_A);
  Query("www.example.test.", LDNS_RR_TYPE_AAAA, true);
  Query("www.example.test.", LDNS_RR_TYPE_AAAA, true);
  Query("nope.example.test.", LDNS_RR_TYPE_A);
  EXPECT_EQ(Sample(udp_a) - before[0], 5);
  EXPECT_EQ(Sample(tcp_aaaa) - before[1], 2);
  EXPECT_EQ(Sample(nx) - before[2], 1);
  EXPECT_EQ(Sample(answers) - before[3], 7);
  EXPECT_EQ(Sample(fallback) - before[4], 7);
  EXPECT_EQ(Sample(sj01) - before[5], 7);  // www answers both us-west nodes
  EXPECT_GE(Sample("ax_dns_request_duration_seconds_count"), 1);
  EXPECT_EQ(Sample("ax_dns_tcp_connections_total{result=\"accepted\"}"), 2);
  EXPECT_EQ(Sample("ax_dns_snapshot_version"), 1);
  EXPECT_EQ(Sample("ax_dns_snapshot_loaded"), 1);
}

TEST_F(OperatingSurfaceTest, ExplainOverHttp) {
  ASSERT_NO_FATAL_FAILURE(StartOpsWorld());
  httplib::Client http = Api();
  auto res = http.Get(
      "/v1/explain?name=www.example.test&client=198.51.100.1"
      "&ecs=192.0.2.0/24");
  ASSERT_EQ(res->status, 200) << res->body;
  EXPECT_EQ(res->get_header_value("Content-Type"), "application/json");
  const nlohmann::json doc = nlohmann::json::parse(res->body);
  for (const char* key : {"query", "snapshot", "geo", "classification",
                          "domain", "route", "candidates", "pick", "addresses",
                          "ttl", "ttlReason", "summary", "ecs", "resolver"}) {
    EXPECT_TRUE(doc.contains(key)) << key;
  }
  EXPECT_EQ(doc["classification"]["region"], "east");
  EXPECT_EQ(http.Get("/v1/explain?name=www.example.test")->status, 400);
  EXPECT_EQ(
      http.Get("/v1/explain?name=x.example.test&client=192.0.2.1")->status,
      404);
}

TEST_F(OperatingSurfaceTest, ExplainAndRedirectAre503BeforeASnapshot) {
  Start({"--snapshot", (dir_ / "missing.json").string(), "--redirect-listen",
         "127.0.0.1:0"});
  auto res = Api().Get("/v1/explain?name=www.example.test&client=192.0.2.1");
  EXPECT_EQ(res->status, 503);
  EXPECT_EQ(nlohmann::json::parse(res->body)["error"],
            "no snapshot loaded yet");
  res = Redirector().Get("/", {{"Host", "www.example.test"}});
  EXPECT_EQ(res->status, 503);
  EXPECT_EQ(nlohmann::json::parse(res->body)["error"],
            "no snapshot loaded yet");
}

TEST_F(OperatingSurfaceTest, SnapshotStatusNamesTheServedSnapshot) {
  ASSERT_NO_FATAL_FAILURE(StartOpsWorld());
  const nlohmann::json doc =
      nlohmann::json::parse(Api().Get("/v1/snapshot")->body);
  EXPECT_EQ(doc["version"], 1);
  EXPECT_TRUE(doc["contentHash"].get<std::string>().starts_with("fnv1a64:"));
  EXPECT_GE(doc["ageSeconds"].get<double>(), 0);
  EXPECT_TRUE(std::regex_match(
      doc["loadedAt"].get<std::string>(),
      std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)")));
  EXPECT_EQ(doc["history"].size(), 1u);
  EXPECT_EQ(doc["history"][0]["version"], 1);
  EXPECT_EQ(doc["lastError"], "");
}

// A stranger's bytes that are not UTF-8, echoed in an error body, come back
// as U+FFFD: a 404 as for any unknown name, never a handler that throws
// (which httplib would turn into a 500).
TEST_F(OperatingSurfaceTest, InvalidUtf8IsReplacedNeverThrown) {
  ASSERT_NO_FATAL_FAILURE(StartOpsWorld({"--redirect-listen", "127.0.0.1:0"}));
  const std::string replacement = "\xEF\xBF\xBD";
  auto res = Api().Get("/v1/explain?name=%FF.example.test&client=192.0.2.1");
  ASSERT_EQ(res->status, 404) << res->body;
  EXPECT_NE(res->body.find(replacement), std::string::npos) << res->body;
  res = Redirector().Get("/", {{"Host", "\xFF.example.test"}});
  ASSERT_EQ(res->status, 404) << res->body;
  EXPECT_NE(res->body.find(replacement), std::string::npos) << res->body;
  // Not a path: refused, not glued to a node's URL.
  httplib::Client raw = Redirector();
  res = raw.Get("@evil.example", {{"Host", "api.example.test"}});
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400) << res->body;
  EXPECT_EQ(res->get_header_value("Location"), "");
}

TEST_F(OperatingSurfaceTest, RedirectorKeepsPathAndQuery) {
  ASSERT_NO_FATAL_FAILURE(StartOpsWorld({"--redirect-listen", "127.0.0.1:0"}));
  httplib::Client r = Redirector();
  // 127.0.0.1 is in no CIDR: rest borrows east; api's canary c leads.
  // (Percent-escapes are kept too: see RedirectorTest; httplib's client
  // re-encodes them.)
  auto res =
      r.Get("/v1/items/7?fields=a,b&x=1", {{"Host", "api.example.test:80"}});
  ASSERT_EQ(res->status, 302) << res->body;
  EXPECT_EQ(res->get_header_value("Location"),
            "https://c.edge.test/v1/items/7?fields=a,b&x=1");
  EXPECT_EQ(res->get_header_value("Cache-Control"), "no-store");
  res = r.Head("/p?q=1", {{"Host", "api.example.test"}});
  ASSERT_EQ(res->status, 302);
  EXPECT_EQ(res->get_header_value("Location"), "https://c.edge.test/p?q=1");
  EXPECT_TRUE(res->body.empty());

  res = r.Get("/", {{"Host", "unknown.example.test"}});
  EXPECT_EQ(res->status, 404);
  EXPECT_EQ(nlohmann::json::parse(res->body)["host"], "unknown.example.test");
  // www in east is b, which has no redirectURL.
  res = r.Get("/", {{"Host", "www.example.test"}});
  EXPECT_EQ(res->status, 503);
  EXPECT_EQ(nlohmann::json::parse(res->body)["error"],
            "none of the chosen nodes (b) has a redirectURL");
  // Not trusted: X-Forwarded-For is ignored.
  res = r.Get(
      "/", {{"Host", "www.example.test"}, {"X-Forwarded-For", "198.51.100.7"}});
  EXPECT_EQ(res->status, 503);
  EXPECT_GE(Sample("ax_dns_redirects_total{code=\"302\"}"), 2);
  EXPECT_GE(Sample("ax_dns_redirects_total{code=\"503\"}"), 2);
}

TEST_F(OperatingSurfaceTest, RedirectorTrustsXffWhenTold) {
  ASSERT_NO_FATAL_FAILURE(StartOpsWorld(
      {"--redirect-listen", "127.0.0.1:0", "--redirect-trust-xff"}));
  // The client 198.51.100.7 is in west, whose www node c has a redirectURL.
  const auto res = Redirector().Get(
      "/x", {{"Host", "www.example.test"},
             {"X-Forwarded-For", "garbage, 198.51.100.7, 10.9.9.9"}});
  ASSERT_EQ(res->status, 302) << res->body;
  EXPECT_EQ(res->get_header_value("Location"), "https://c.edge.test/x");
}

TEST_F(OperatingSurfaceTest, DecisionLogRecordsSampledDecisions) {
  const auto log = dir_ / "decisions.jsonl";
  ASSERT_NO_FATAL_FAILURE(StartOpsWorld(
      {"--decision-log", log.string(), "--decision-log-sample", "1"}));
  Query("www.example.test.", LDNS_RR_TYPE_A);
  Query("nope.example.test.", LDNS_RR_TYPE_A);  // no decision, no line
  ASSERT_TRUE(WaitFor([&] { return !ReadFile(log).empty(); }));
  service_->Stop();  // drains
  std::istringstream lines(ReadFile(log));
  std::vector<nlohmann::json> records;
  for (std::string line; std::getline(lines, line);) {
    records.push_back(nlohmann::json::parse(line));
  }
  ASSERT_EQ(records.size(), 1u);
  const nlohmann::json& r = records[0];
  for (const char* key :
       {"ts", "client", "ecs", "qname", "qtype", "region", "area", "isp",
        "source", "candidates", "chosen", "ttl", "ttlReason", "reason"}) {
    EXPECT_TRUE(r.contains(key)) << key;
  }
  EXPECT_EQ(r["client"], "127.0.0.1");
  EXPECT_TRUE(r["ecs"].is_null());
  EXPECT_EQ(r["qname"], "www.example.test");
  EXPECT_EQ(r["region"], "rest");
  EXPECT_EQ(r["source"], "FallbackRegion");
  EXPECT_EQ(r["chosen"], nlohmann::json::array({"b"}));
  EXPECT_EQ(r["candidates"][0]["node"], "b");
}

}  // namespace
}  // namespace ax::dns
