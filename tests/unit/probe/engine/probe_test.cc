// One probe at a time (RunProbe over the engine's ProbeConnection) against
// real local backends: healthy, wrong status, slow, the deadlocked
// application, refused, TLS verified / wrong CA / wrong name / skipped,
// token, Host header, body match, JSON load, chunked and oversized bodies,
// garbage and resets.
#include <gtest/gtest.h>
#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "backends.h"
#include "engine/run_probe.h"
#include "engine/tls.h"
#include "test_pki.h"

namespace ax::probe {
namespace {

using testing::ClosedPort;
using testing::HttpBackend;
using testing::MakeTarget;
using testing::RawResponder;
using testing::SilentListener;
using testing::TestPki;

void ExpectOrdered(const Phases& p, bool tls) {
  ASSERT_TRUE(p.connect_ms && p.first_byte_ms && p.total_ms);
  EXPECT_GE(*p.connect_ms, 0);
  if (tls) {
    ASSERT_TRUE(p.tls_ms);
    EXPECT_LE(*p.connect_ms, *p.tls_ms);
    EXPECT_LE(*p.tls_ms, *p.first_byte_ms);
  } else {
    EXPECT_FALSE(p.tls_ms);
    EXPECT_LE(*p.connect_ms, *p.first_byte_ms);
  }
  EXPECT_LE(*p.first_byte_ms, *p.total_ms);
}

TEST(ProbeTest, HealthyHttp) {
  HttpBackend backend;
  backend.server().Get("/healthz",
                       [](const httplib::Request&, httplib::Response& res) {
                         res.set_content("ok", "text/plain");
                       });
  const int port = backend.Start();
  const ProbeOutcome out =
      RunProbe(MakeTarget("a", ProbeProtocol::kHttp, port), {});
  EXPECT_TRUE(out.ok()) << out.detail;
  EXPECT_EQ(out.error, ProbeError::kNone);
  EXPECT_EQ(out.http_status, 200);
  ExpectOrdered(out.phases, /*tls=*/false);
  EXPECT_LT(*out.phases.total_ms, 1000);
  EXPECT_FALSE(out.self.load);  // "ok" is not JSON: ignored silently
}

TEST(ProbeTest, HealthyOverIpv6) {
  HttpBackend backend;
  backend.server().Get(
      "/healthz", [](const httplib::Request& req, httplib::Response& res) {
        res.set_content(req.get_header_value("Host"), "text/plain");
      });
  const int port = backend.Start("::1");
  if (port <= 0) GTEST_SKIP() << "no IPv6 loopback here";
  ProbeTarget target = MakeTarget("a", ProbeProtocol::kHttp, port);
  target.address = *ParseIp("::1");
  target.check.body_match = "[::1]:" + std::to_string(port);
  const ProbeOutcome out = RunProbe(target, {});
  EXPECT_TRUE(out.ok()) << out.detail;
}

TEST(OutcomeTest, PhaseDurationsSplitTheCumulativeTimes) {
  Phases p;
  p.connect_ms = 1;
  p.tls_ms = 4;
  p.first_byte_ms = 10;
  p.total_ms = 12;
  const auto d = PhaseDurations(p);
  ASSERT_EQ(d.size(), 5u);
  const char* names[] = {"connect", "tls", "first_byte", "transfer", "total"};
  const double ms[] = {1, 3, 6, 2, 12};
  for (size_t i = 0; i < d.size(); ++i) {
    EXPECT_STREQ(d[i].phase, names[i]);
    EXPECT_DOUBLE_EQ(d[i].ms, ms[i]);
  }
  // A timeout before the first byte: connect, then only the total.
  Phases t;
  t.connect_ms = 2;
  t.total_ms = 300;
  const auto dt = PhaseDurations(t);
  ASSERT_EQ(dt.size(), 2u);
  EXPECT_STREQ(dt[1].phase, "total");
  EXPECT_DOUBLE_EQ(dt[1].ms, 300);
}

TEST(OutcomeTest, ProbeResultCarriesTheReasonFirst) {
  ProbeOutcome out;
  out.error = ProbeError::kTimeout;
  out.detail = "no answer within 2000 ms (first byte)";
  out.phases.total_ms = 2000;
  const ProbeResult r = ToProbeResult(out, 99);
  EXPECT_FALSE(r.ok);
  EXPECT_FALSE(r.latency_ms);
  EXPECT_EQ(r.error, "timeout: no answer within 2000 ms (first byte)");
}

TEST(ProbeTest, TcpCheckOnlyConnects) {
  HttpBackend backend;
  const int port = backend.Start();
  const ProbeOutcome out =
      RunProbe(MakeTarget("a", ProbeProtocol::kTcp, port), {});
  EXPECT_TRUE(out.ok()) << out.detail;
  EXPECT_TRUE(out.phases.connect_ms);
  EXPECT_FALSE(out.phases.first_byte_ms);
  EXPECT_EQ(out.phases.total_ms, out.phases.connect_ms);
}

TEST(ProbeTest, WrongStatusIsAStatusError) {
  HttpBackend backend;
  backend.server().Get("/healthz",
                       [](const httplib::Request&, httplib::Response& res) {
                         res.status = 503;
                         res.set_content("overloaded", "text/plain");
                       });
  const int port = backend.Start();
  ProbeTarget target = MakeTarget("a", ProbeProtocol::kHttp, port);
  ProbeOutcome out = RunProbe(target, {});
  EXPECT_EQ(out.error, ProbeError::kStatus);
  EXPECT_EQ(out.http_status, 503);
  EXPECT_NE(out.detail.find("503"), std::string::npos);

  // The expected list is the node's to choose.
  target.check.expect_status = {200, 503};
  out = RunProbe(target, {});
  EXPECT_TRUE(out.ok()) << out.detail;
}

TEST(ProbeTest, SlowBeyondTheTimeoutIsATimeout) {
  std::mutex mu;
  std::condition_variable cv;
  bool release = false;
  HttpBackend backend;
  backend.server().Get(
      "/healthz", [&](const httplib::Request&, httplib::Response& res) {
        std::unique_lock lock(mu);
        cv.wait_for(lock, std::chrono::seconds(5), [&] { return release; });
        res.set_content("late", "text/plain");
      });
  const int port = backend.Start();
  ProbeTarget target = MakeTarget("a", ProbeProtocol::kHttp, port);
  target.check.timeout_ms = 200;
  const auto t0 = std::chrono::steady_clock::now();
  const ProbeOutcome out = RunProbe(target, {});
  const auto took = std::chrono::steady_clock::now() - t0;
  {
    std::lock_guard lock(mu);
    release = true;
  }
  cv.notify_all();
  EXPECT_EQ(out.error, ProbeError::kTimeout);
  EXPECT_TRUE(out.phases.connect_ms);
  EXPECT_FALSE(out.phases.first_byte_ms);
  EXPECT_GE(*out.phases.total_ms, 199);
  EXPECT_LT(took, std::chrono::milliseconds(1000));
}

TEST(ProbeTest, AcceptingButSilentNodeIsUpForTcpAndDownForHttp) {
  // The seeds' lesson: the port accepts, the application is deadlocked.
  SilentListener silent;
  ProbeTarget tcp = MakeTarget("a", ProbeProtocol::kTcp, silent.port());
  tcp.check.timeout_ms = 300;
  const ProbeOutcome tcp_out = RunProbe(tcp, {});
  EXPECT_TRUE(tcp_out.ok()) << tcp_out.detail;

  ProbeTarget http = tcp;
  http.check.protocol = ProbeProtocol::kHttp;
  const ProbeOutcome http_out = RunProbe(http, {});
  EXPECT_EQ(http_out.error, ProbeError::kTimeout);
  EXPECT_NE(http_out.detail.find("first byte"), std::string::npos)
      << http_out.detail;
  EXPECT_TRUE(http_out.phases.connect_ms);
}

TEST(ProbeTest, NothingListeningIsRefused) {
  const int port = ClosedPort();
  for (auto protocol :
       {ProbeProtocol::kTcp, ProbeProtocol::kHttp, ProbeProtocol::kHttps}) {
    SslCtxPtr ctx = MakeClientTlsContext({"", true}, nullptr);
    ConnectionOptions options;
    options.tls = ctx.get();
    const ProbeOutcome out = RunProbe(MakeTarget("a", protocol, port), options);
    EXPECT_EQ(out.error, ProbeError::kRefused) << out.detail;
    EXPECT_FALSE(out.phases.connect_ms);
    EXPECT_TRUE(out.phases.total_ms);
  }
}

TEST(ProbeTest, MisconfiguredTargetsFailAsConfig) {
  ProbeTarget target = MakeTarget("a", ProbeProtocol::kTcp, 0);
  EXPECT_EQ(RunProbe(target, {}).error, ProbeError::kConfig);
  target = MakeTarget("a", ProbeProtocol::kHttps, 443);
  EXPECT_EQ(RunProbe(target, {}).error, ProbeError::kConfig);  // no context
  target = MakeTarget("a", ProbeProtocol::kHttp, 80);
  target.check.host = "evil\r\nX-Injected: 1";
  EXPECT_EQ(RunProbe(target, {}).error, ProbeError::kConfig);
}

class TlsProbeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(pki_.ok());
    ASSERT_TRUE(other_pki_.ok());
    backend_ = std::make_unique<HttpBackend>(pki_.cert_file(), pki_.key_file());
    ASSERT_TRUE(backend_->valid());
    backend_->server().Get("/healthz", [this](const httplib::Request& req,
                                              httplib::Response& res) {
      std::lock_guard lock(mu_);
      seen_host_ = req.get_header_value("Host");
      res.set_content("secure ok", "text/plain");
    });
    port_ = backend_->Start();
  }

  ProbeOutcome Probe(const TlsOptions& tls, const std::string& host) {
    std::string error;
    SslCtxPtr ctx = MakeClientTlsContext(tls, &error);
    EXPECT_TRUE(ctx) << error;
    ConnectionOptions options;
    options.tls = ctx.get();
    ProbeTarget target = MakeTarget("n", ProbeProtocol::kHttps, port_);
    target.check.host = host;
    return RunProbe(target, options);
  }

  TestPki pki_{"node.test"};
  TestPki other_pki_{"node.test"};
  std::unique_ptr<HttpBackend> backend_;
  int port_ = 0;
  std::mutex mu_;
  std::string seen_host_;
};

TEST_F(TlsProbeTest, VerifiedAgainstTheConfiguredCa) {
  const ProbeOutcome out = Probe({pki_.ca_file(), false}, "node.test");
  EXPECT_TRUE(out.ok()) << out.detail;
  EXPECT_EQ(out.http_status, 200);
  ExpectOrdered(out.phases, /*tls=*/true);
  std::lock_guard lock(mu_);
  EXPECT_EQ(seen_host_, "node.test:" + std::to_string(port_));
}

TEST_F(TlsProbeTest, WithoutHostTheAddressIsVerified) {
  const ProbeOutcome out = Probe({pki_.ca_file(), false}, "");
  EXPECT_TRUE(out.ok()) << out.detail;
}

TEST_F(TlsProbeTest, WrongCaIsATlsError) {
  const ProbeOutcome out = Probe({other_pki_.ca_file(), false}, "node.test");
  EXPECT_EQ(out.error, ProbeError::kTls);
  EXPECT_NE(out.detail.find("certificate"), std::string::npos) << out.detail;
  EXPECT_TRUE(out.phases.connect_ms);
  EXPECT_FALSE(out.phases.tls_ms);
  EXPECT_EQ(out.http_status, 0);
}

TEST_F(TlsProbeTest, NameMismatchIsATlsError) {
  const ProbeOutcome out = Probe({pki_.ca_file(), false}, "other.test");
  EXPECT_EQ(out.error, ProbeError::kTls) << out.detail;
}

TEST_F(TlsProbeTest, SkippingVerificationMustBeAskedFor) {
  const ProbeOutcome out = Probe({other_pki_.ca_file(), true}, "node.test");
  EXPECT_TRUE(out.ok()) << out.detail;
}

TEST_F(TlsProbeTest, PlainHttpAgainstTlsIsNotOk) {
  ProbeTarget target = MakeTarget("n", ProbeProtocol::kHttp, port_);
  target.check.timeout_ms = 500;
  const ProbeOutcome out = RunProbe(target, {});
  EXPECT_FALSE(out.ok());
}

TEST(TlsContextTest, AMissingCaFileIsAnError) {
  std::string error;
  EXPECT_FALSE(MakeClientTlsContext({"/nonexistent/ca.pem", false}, &error));
  EXPECT_NE(error.find("/nonexistent/ca.pem"), std::string::npos);
}

TEST(ProbeTest, TlsAgainstAPlainServerIsATlsError) {
  HttpBackend backend;
  backend.server().Get("/healthz",
                       [](const httplib::Request&, httplib::Response& res) {
                         res.set_content("ok", "text/plain");
                       });
  const int port = backend.Start();
  SslCtxPtr ctx = MakeClientTlsContext({"", true}, nullptr);
  ConnectionOptions options;
  options.tls = ctx.get();
  const ProbeOutcome out =
      RunProbe(MakeTarget("a", ProbeProtocol::kHttps, port), options);
  EXPECT_EQ(out.error, ProbeError::kTls) << out.detail;
}

TEST(ProbeTest, TokenIsSentSoNodesCanAllowListProbes) {
  HttpBackend backend;
  backend.server().Get(
      "/healthz", [](const httplib::Request& req, httplib::Response& res) {
        if (!req.has_header("X-Ax-Probe-Token")) {
          res.status = 401;
        } else if (req.get_header_value("X-Ax-Probe-Token") != "s3cret") {
          res.status = 403;
        } else {
          res.set_content("ok", "text/plain");
        }
      });
  const int port = backend.Start();
  ProbeTarget target = MakeTarget("a", ProbeProtocol::kHttp, port);

  ProbeOutcome out = RunProbe(target, {});
  EXPECT_EQ(out.error, ProbeError::kStatus);
  EXPECT_EQ(out.http_status, 401);

  target.token = "forged";
  out = RunProbe(target, {});
  EXPECT_EQ(out.http_status, 403);
  EXPECT_EQ(out.detail.find("forged"), std::string::npos);  // never echoed

  target.token = "s3cret";
  out = RunProbe(target, {});
  EXPECT_TRUE(out.ok()) << out.detail;

  // The header name is configurable.
  ConnectionOptions options;
  options.token_header = "X-Other";
  out = RunProbe(target, options);
  EXPECT_EQ(out.http_status, 401);
}

TEST(ProbeTest, HostHeaderAndPathComeFromTheCheck) {
  std::mutex mu;
  std::string host, path;
  HttpBackend backend;
  backend.server().Get(
      R"(/.*)", [&](const httplib::Request& req, httplib::Response& res) {
        std::lock_guard lock(mu);
        host = req.get_header_value("Host");
        path = req.path;
        res.set_content("ok", "text/plain");
      });
  const int port = backend.Start();
  ProbeTarget target = MakeTarget("a", ProbeProtocol::kHttp, port, "ready");
  target.check.host = "edge.example.com";
  EXPECT_TRUE(RunProbe(target, {}).ok());
  std::lock_guard lock(mu);
  EXPECT_EQ(host, "edge.example.com:" + std::to_string(port));
  EXPECT_EQ(path, "/ready");
}

TEST(ProbeTest, BodyMatch) {
  HttpBackend backend;
  backend.server().Get("/healthz",
                       [](const httplib::Request&, httplib::Response& res) {
                         res.set_content("status: degraded", "text/plain");
                       });
  const int port = backend.Start();
  ProbeTarget target = MakeTarget("a", ProbeProtocol::kHttp, port);
  target.check.body_match = "degraded";
  EXPECT_TRUE(RunProbe(target, {}).ok());
  target.check.body_match = "status: ready";
  const ProbeOutcome out = RunProbe(target, {});
  EXPECT_EQ(out.error, ProbeError::kBody);
  EXPECT_EQ(out.http_status, 200);
}

TEST(ProbeTest, JsonBodyCarriesLoadAndErrorRate) {
  HttpBackend backend;
  backend.server().Get(
      "/healthz", [](const httplib::Request&, httplib::Response& res) {
        res.set_content(
            R"({"status":"ok","bandwidth_mbps":812.5,"connections":1200,)"
            R"("errorRate":0.0025})",
            "application/json");
      });
  const int port = backend.Start();
  const ProbeOutcome out =
      RunProbe(MakeTarget("a", ProbeProtocol::kHttp, port), {});
  EXPECT_TRUE(out.ok()) << out.detail;
  ASSERT_TRUE(out.self.load);
  EXPECT_DOUBLE_EQ(out.self.load->bandwidth_mbps, 812.5);
  EXPECT_DOUBLE_EQ(out.self.load->connections, 1200);
  const ProbeResult result = ToProbeResult(out, 1234);
  ASSERT_TRUE(result.load);
  EXPECT_DOUBLE_EQ(result.load->connections, 1200);
  EXPECT_EQ(result.error_rate, 0.0025);
  EXPECT_EQ(result.at_ms, 1234);
  EXPECT_EQ(result.latency_ms, out.phases.total_ms);
}

TEST(ProbeTest, ChunkedBody) {
  HttpBackend backend;
  backend.server().Get(
      "/healthz", [](const httplib::Request&, httplib::Response& res) {
        res.set_chunked_content_provider(
            "application/json", [](size_t offset, httplib::DataSink& sink) {
              if (offset == 0) {
                sink.write("{\"connections\":", 15);
                sink.write(" 7}", 3);
              }
              sink.done();
              return true;
            });
      });
  const int port = backend.Start();
  ProbeTarget target = MakeTarget("a", ProbeProtocol::kHttp, port);
  target.check.body_match = "connections";
  const ProbeOutcome out = RunProbe(target, {});
  EXPECT_TRUE(out.ok()) << out.detail;
  ASSERT_TRUE(out.self.load);
  EXPECT_DOUBLE_EQ(out.self.load->connections, 7);
}

TEST(ProbeTest, BodyIsCappedAndTheCapIsSaid) {
  HttpBackend backend;
  backend.server().Get(
      "/healthz", [](const httplib::Request&, httplib::Response& res) {
        res.set_content("HEAD" + std::string(size_t{512} * 1024, 'x') + "TAIL",
                        "text/plain");
      });
  const int port = backend.Start();
  ProbeTarget target = MakeTarget("a", ProbeProtocol::kHttp, port);
  ConnectionOptions options;
  options.max_body_bytes = 1024;
  target.check.body_match = "HEAD";
  EXPECT_TRUE(RunProbe(target, options).ok());
  target.check.body_match = "TAIL";
  const ProbeOutcome out = RunProbe(target, options);
  EXPECT_EQ(out.error, ProbeError::kBody);
  EXPECT_NE(out.detail.find("first 1024 bytes"), std::string::npos)
      << out.detail;
}

TEST(ProbeTest, GarbageIsAProtocolError) {
  RawResponder raw([](int fd) {
    const char reply[] = "SSH-2.0-OpenSSH_9.2\r\n\r\n";
    (void)::send(fd, reply, sizeof(reply) - 1, MSG_NOSIGNAL);
  });
  const ProbeOutcome out =
      RunProbe(MakeTarget("a", ProbeProtocol::kHttp, raw.port()), {});
  EXPECT_EQ(out.error, ProbeError::kProtocol) << out.detail;
}

// A hostile endpoint streaming trailer lines as fast as it can (issue 15):
// the probe stops at the trailer cap with a protocol error, well before its
// timeout, instead of reading for as long as the endpoint likes.
TEST(ProbeTest, EndlessTrailersAreAProtocolErrorNotATimeout) {
  RawResponder raw([](int fd) {
    const std::string head =
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n"
        "0\r\n";
    if (::send(fd, head.data(), head.size(), MSG_NOSIGNAL) < 0) return;
    const std::string trailers(64 * 1024, 'x');
    std::string lines;
    for (int i = 0; i < 1000; ++i)
      lines += "X-Trailer: " + trailers.substr(0, 50) + "\r\n";
    for (int i = 0; i < 2000; ++i) {  // ~120 MB if nobody stopped reading
      if (::send(fd, lines.data(), lines.size(), MSG_NOSIGNAL) < 0) return;
    }
  });
  const ProbeOutcome out =
      RunProbe(MakeTarget("a", ProbeProtocol::kHttp, raw.port()), {});
  EXPECT_EQ(out.error, ProbeError::kProtocol) << out.detail;
  EXPECT_NE(out.detail.find("trailers too large"), std::string::npos)
      << out.detail;
}

TEST(ProbeTest, ClosingMidResponseIsAProtocolError) {
  RawResponder raw([](int fd) {
    const char reply[] = "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nshort";
    (void)::send(fd, reply, sizeof(reply) - 1, MSG_NOSIGNAL);
  });
  const ProbeOutcome out =
      RunProbe(MakeTarget("a", ProbeProtocol::kHttp, raw.port()), {});
  EXPECT_EQ(out.error, ProbeError::kProtocol) << out.detail;
  EXPECT_EQ(out.http_status, 200);
}

TEST(ProbeTest, ResetIsAConnectError) {
  RawResponder raw([](int fd) {
    linger lg{1, 0};  // close() sends RST
    ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
  });
  const ProbeOutcome out =
      RunProbe(MakeTarget("a", ProbeProtocol::kHttp, raw.port()), {});
  EXPECT_EQ(out.error, ProbeError::kConnect) << out.detail;
}

TEST(ProbeErrorTest, NamesRoundTrip) {
  for (auto e : {ProbeError::kNone, ProbeError::kTimeout, ProbeError::kRefused,
                 ProbeError::kConnect, ProbeError::kTls, ProbeError::kProtocol,
                 ProbeError::kStatus, ProbeError::kBody, ProbeError::kConfig}) {
    EXPECT_EQ(ParseProbeError(ProbeErrorName(e)), e);
  }
  EXPECT_STREQ(ProbeErrorName(ProbeError::kTimeout), "timeout");
  EXPECT_STREQ(ProbeErrorName(ProbeError::kRefused), "refused");
  EXPECT_FALSE(ParseProbeError("nope"));
}

}  // namespace
}  // namespace ax::probe
