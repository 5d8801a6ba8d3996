// TLS session resumption per node. TlsSessionCache on its own: a session
// goes only to the peer it was made with, expires a fixed time after the
// full handshake that verified the certificate (resumed handshakes do not
// renew that), and a clock step back expires it. The engine against real
// local TLS backends (TLS 1.3 and 1.2): the second probe of a node resumes;
// a failed probe, the maximum age and a changed node force a full
// handshake; servers that issue no tickets or refuse them still pass.
#include <gtest/gtest.h>
#include <openssl/ssl.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "backends.h"
#include "engine/engine.h"
#include "engine/tls_sessions.h"
#include "test_pki.h"

namespace ax::probe {
namespace {

using namespace std::chrono_literals;
using testing::HttpBackend;
using testing::MakeTarget;
using testing::TestPki;

// --- TlsSessionCache -------------------------------------------------------

SslSessionPtr NewSession() { return SslSessionPtr(SSL_SESSION_new()); }

TlsPeer Peer(const std::string& host = "node.test", uint16_t port = 443) {
  return {testing::Loopback(), port, host};
}

TEST(TlsSessionCacheTest, OffersTheKeptSessionToTheSamePeerOnly) {
  TlsSessionCache cache(60'000);
  EXPECT_FALSE(cache.Find("a", Peer(), 0));
  SslSessionPtr session = NewSession();
  SSL_SESSION* raw = session.get();
  cache.Keep("a", Peer(), std::move(session), /*resumed=*/false, 0);
  EXPECT_EQ(cache.Find("a", Peer(), 10).get(), raw);
  EXPECT_EQ(cache.Find("a", Peer(), 20).get(), raw);  // still kept
  EXPECT_FALSE(cache.Find("b", Peer(), 20));          // per node

  // Another name, port or address: not offered, and forgotten.
  cache.Keep("a", Peer(), NewSession(), false, 0);
  EXPECT_FALSE(cache.Find("a", Peer("other.test"), 10));
  EXPECT_FALSE(cache.Find("a", Peer(), 10));
  cache.Keep("a", Peer(), NewSession(), false, 0);
  EXPECT_FALSE(cache.Find("a", Peer("node.test", 8443), 10));
  cache.Keep("a", Peer(), NewSession(), false, 0);
  EXPECT_FALSE(cache.Find("a", {*ParseIp("127.0.0.2"), 443, "node.test"}, 10));
  EXPECT_EQ(cache.size(), 0u);
}

TEST(TlsSessionCacheTest, ResumedSessionsKeepTheFirstVerificationTime) {
  TlsSessionCache cache(60'000);
  cache.Keep("a", Peer(), NewSession(), /*resumed=*/false, 1000);
  // Resumed at 50 s with a fresh ticket: trusted only until 1 s + 60 s.
  cache.Keep("a", Peer(), NewSession(), /*resumed=*/true, 50'000);
  EXPECT_TRUE(cache.Find("a", Peer(), 60'999));
  EXPECT_FALSE(cache.Find("a", Peer(), 61'000));
  // A full handshake starts the time again.
  cache.Keep("a", Peer(), NewSession(), /*resumed=*/false, 61'000);
  EXPECT_TRUE(cache.Find("a", Peer(), 120'999));
}

TEST(TlsSessionCacheTest, AClockSteppedBackExpiresTheSession) {
  TlsSessionCache cache(60'000);
  cache.Keep("a", Peer(), NewSession(), false, 10'000);
  EXPECT_FALSE(cache.Find("a", Peer(), 9'999));
  EXPECT_FALSE(cache.Find("a", Peer(), 10'000));  // dropped for good
}

TEST(TlsSessionCacheTest, NothingToKeepDropsTheOldSession) {
  TlsSessionCache cache(60'000);
  cache.Keep("a", Peer(), NewSession(), false, 0);
  cache.Keep("a", Peer(), nullptr, false, 10);  // the server gave none
  EXPECT_FALSE(cache.Find("a", Peer(), 20));
  // A resumption the cache has no record of: its age is unknown.
  cache.Keep("b", Peer(), NewSession(), /*resumed=*/true, 0);
  EXPECT_FALSE(cache.Find("b", Peer(), 0));
  cache.Keep("c", Peer(), NewSession(), false, 0);
  cache.Drop("c");
  EXPECT_FALSE(cache.Find("c", Peer(), 0));
}

TEST(TlsSessionCacheTest, MaxAgeZeroNeverResumes) {
  TlsSessionCache cache(0);
  cache.Keep("a", Peer(), NewSession(), false, 0);
  EXPECT_FALSE(cache.Find("a", Peer(), 0));
}

// --- The engine against real TLS backends ------------------------------------

// An HTTPS health endpoint (cert for node.test and 127.0.0.1 from `pki`)
// that counts requests and which of them came over a resumed session, and
// can be switched to answer 500.
class TlsBackend {
 public:
  // `setup` adjusts the server's SSL_CTX before it starts.
  explicit TlsBackend(const TestPki& pki,
                      const std::function<void(SSL_CTX*)>& setup = nullptr)
      : backend_(pki.cert_file(), pki.key_file()) {
    if (setup) setup(backend_.ssl_context());
    backend_.server().Get("/healthz", [this](const httplib::Request& req,
                                             httplib::Response& res) {
      ++requests_;
      if (req.ssl != nullptr && SSL_session_reused(req.ssl) == 1) {
        ++resumed_;
      }
      res.status = failing_ ? 500 : 200;
      res.set_content("ok", "text/plain");
    });
    port_ = backend_.Start();
  }
  int port() const { return port_; }
  void SetFailing(bool failing) { failing_ = failing; }
  int requests() const { return requests_; }
  int resumed() const { return resumed_; }

 private:
  HttpBackend backend_;
  int port_ = 0;
  std::atomic<bool> failing_{false};
  std::atomic<int> requests_{0};
  std::atomic<int> resumed_{0};
};

// The engine's results, and a hook run on the engine thread after each one
// (with its index), before the node's next probe can start: what the hook
// changes applies exactly from the next probe on.
class Events {
 public:
  explicit Events(std::function<void(size_t)> hook = nullptr)
      : hook_(std::move(hook)) {}
  ProbeSink Sink() {
    return [this](const ProbeEvent& e) {
      size_t index = 0;
      {
        std::lock_guard lock(mu_);
        index = events_.size();
        events_.push_back(e);
      }
      if (hook_) hook_(index);
      cv_.notify_all();
    };
  }
  bool WaitFor(size_t count) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, 10s, [&] { return events_.size() >= count; });
  }
  std::vector<ProbeEvent> Get() {
    std::lock_guard lock(mu_);
    return events_;
  }

 private:
  std::function<void(size_t)> hook_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<ProbeEvent> events_;
};

EngineConfig TlsConfig(const TestPki& pki) {
  EngineConfig config;
  config.seed = 99;
  config.scheduler.cold_start_spread_ms = 0;
  config.tls.ca_file = pki.ca_file();
  return config;
}

ProbeTarget HttpsTarget(int port, const std::string& host = "node.test") {
  ProbeTarget t = MakeTarget("n", ProbeProtocol::kHttps, port);
  t.check.host = host;
  t.check.interval_ms = 30;
  t.check.timeout_ms = 1500;  // a full handshake under ASan on a busy box
  return t;
}

// Which of the events resumed, e.g. "FRRFR".
std::string Handshakes(const std::vector<ProbeEvent>& events) {
  std::string out;
  for (const ProbeEvent& e : events) out += e.outcome.tls_resumed ? 'R' : 'F';
  return out;
}

class TlsResumptionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(pki_.ok());
    ASSERT_TRUE(other_pki_.ok());
  }

  // Runs the engine on `target` until `count` results arrived.
  std::vector<ProbeEvent> Run(EngineConfig config, const ProbeTarget& target,
                              size_t count, Events& events,
                              EngineCounters* counters = nullptr) {
    ProbeEngine engine(std::move(config), events.Sink());
    engine_ = &engine;
    std::string error;
    EXPECT_TRUE(engine.Start(&error)) << error;
    engine.SetTargets({target});
    EXPECT_TRUE(events.WaitFor(count));
    engine.Stop();
    engine_ = nullptr;
    if (counters) *counters = engine.Counters();
    std::vector<ProbeEvent> out = events.Get();
    out.resize(std::min(out.size(), count));
    return out;
  }

  TestPki pki_{"node.test"};
  TestPki other_pki_{"node.test"};
  ProbeEngine* engine_ = nullptr;  // while Run runs, for hooks
};

TEST_F(TlsResumptionTest, TheSecondProbeOfANodeResumes) {
  TlsBackend backend(pki_);
  Events events;
  EngineCounters counters;
  const auto got =
      Run(TlsConfig(pki_), HttpsTarget(backend.port()), 4, events, &counters);
  EXPECT_EQ(Handshakes(got), "FRRR");
  for (const ProbeEvent& e : got) {
    EXPECT_TRUE(e.outcome.ok()) << e.outcome.detail;
    EXPECT_TRUE(e.outcome.phases.tls_ms);
  }
  // The server agrees, and the counters say the same.
  EXPECT_GE(backend.requests(), 4);
  EXPECT_EQ(backend.resumed(), backend.requests() - 1);
  EXPECT_EQ(counters.tls_resumed + 1, counters.tls_handshakes);
}

TEST_F(TlsResumptionTest, Tls12SessionsResumeToo) {
  TlsBackend backend(pki_, [](SSL_CTX* ctx) {
    SSL_CTX_set_max_proto_version(ctx, TLS1_2_VERSION);
  });
  Events events;
  const auto got = Run(TlsConfig(pki_), HttpsTarget(backend.port()), 3, events);
  EXPECT_EQ(Handshakes(got), "FRR");
  for (const ProbeEvent& e : got)
    EXPECT_TRUE(e.outcome.ok()) << e.outcome.detail;
}

TEST_F(TlsResumptionTest, AFailedProbeForcesAFullHandshake) {
  TlsBackend backend(pki_);
  // Results 3 and 4 fail (HTTP 500): the switch is flipped on the engine
  // thread between probes, so it applies exactly to the next one.
  Events events([&](size_t i) {
    if (i == 1) backend.SetFailing(true);
    if (i == 3) backend.SetFailing(false);
  });
  const auto got = Run(TlsConfig(pki_), HttpsTarget(backend.port()), 6, events);
  ASSERT_EQ(got.size(), 6u);
  std::string oks;
  for (const ProbeEvent& e : got) oks += e.outcome.ok() ? '+' : '-';
  EXPECT_EQ(oks, "++--++");
  // The failing probe resumed (the previous one passed); the next one did
  // not trust that handshake, and the one after a pass resumes again.
  EXPECT_EQ(Handshakes(got), "FRRFFR");
}

TEST_F(TlsResumptionTest, TheMaximumAgeForcesAFullHandshake) {
  TlsBackend backend(pki_);
  std::atomic<int64_t> now_ms{1'000'000};
  EngineConfig config = TlsConfig(pki_);
  config.tls_session_max_age_ms = 60'000;
  config.wall_ms = [&] { return now_ms.load(); };
  // The first (full) handshake is at 1'000'000. After result 2 the clock is
  // 1 ms short of the maximum age, after result 3 at it.
  Events events([&](size_t i) {
    if (i == 2) now_ms += 60'000 - 1;
    if (i == 3) now_ms += 1;
  });
  const auto got = Run(config, HttpsTarget(backend.port()), 6, events);
  EXPECT_EQ(Handshakes(got), "FRRRFR");
  for (const ProbeEvent& e : got)
    EXPECT_TRUE(e.outcome.ok()) << e.outcome.detail;
}

TEST_F(TlsResumptionTest, MaxAgeZeroMeansAFullHandshakeEveryProbe) {
  TlsBackend backend(pki_);
  EngineConfig config = TlsConfig(pki_);
  config.tls_session_max_age_ms = 0;
  Events events;
  const auto got = Run(config, HttpsTarget(backend.port()), 3, events);
  EXPECT_EQ(Handshakes(got), "FFF");
  EXPECT_EQ(backend.resumed(), 0);
}

TEST_F(TlsResumptionTest, AChangedNodeDoesNotReuseTheSession) {
  // Two servers with the same certificate and CA; only the ticket keys
  // differ, so what keeps the session from going across is the engine.
  TlsBackend first(pki_), second(pki_);
  const ProbeTarget by_name = HttpsTarget(first.port(), "node.test");
  const ProbeTarget by_address = HttpsTarget(first.port(), "");
  const ProbeTarget moved = HttpsTarget(second.port(), "node.test");
  // Changed on the engine thread right after results 1, 3 and 5: each
  // change applies before the next probe starts.
  Events events([&](size_t i) {
    if (i == 1) engine_->SetTargets({by_address});  // another name
    if (i == 3) engine_->SetTargets({moved});       // another port
    if (i == 5) engine_->SetTargets({by_name});     // back: not kept either
  });
  const auto got = Run(TlsConfig(pki_), by_name, 8, events);
  EXPECT_EQ(Handshakes(got), "FRFRFRFR");
  for (const ProbeEvent& e : got)
    EXPECT_TRUE(e.outcome.ok()) << e.outcome.detail;
  EXPECT_GE(second.requests(), 2);
}

TEST_F(TlsResumptionTest, AnotherCaIsAnotherEngineWithItsOwnSessions) {
  // The CA settings are the engine's, and so is the session cache: an
  // engine trusting another CA starts with none and verifies (and fails).
  TlsBackend backend(pki_);
  Events trusting;
  EXPECT_EQ(Handshakes(
                Run(TlsConfig(pki_), HttpsTarget(backend.port()), 2, trusting)),
            "FR");
  Events distrusting;
  const auto got =
      Run(TlsConfig(other_pki_), HttpsTarget(backend.port()), 2, distrusting);
  ASSERT_EQ(got.size(), 2u);
  for (const ProbeEvent& e : got) {
    EXPECT_EQ(e.outcome.error, ProbeError::kTls) << e.outcome.detail;
    EXPECT_FALSE(e.outcome.tls_resumed);
  }
}

TEST_F(TlsResumptionTest, AServerWithoutTicketsOrCacheStillPasses) {
  TlsBackend backend(pki_, [](SSL_CTX* ctx) {
    SSL_CTX_set_num_tickets(ctx, 0);
    SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
  });
  Events events;
  EngineCounters counters;
  const auto got =
      Run(TlsConfig(pki_), HttpsTarget(backend.port()), 3, events, &counters);
  EXPECT_EQ(Handshakes(got), "FFF");
  for (const ProbeEvent& e : got)
    EXPECT_TRUE(e.outcome.ok()) << e.outcome.detail;
  EXPECT_EQ(counters.tls_resumed, 0u);
}

// The server's ticket decryption: counts the tickets offered, resumes none
// (full handshake, a fresh ticket issued) - like a node whose ticket keys
// changed since, e.g. after a restart.
std::atomic<int> g_tickets_refused{0};
SSL_TICKET_RETURN RefuseTicket(SSL*, SSL_SESSION*, const unsigned char*, size_t,
                               SSL_TICKET_STATUS, void*) {
  ++g_tickets_refused;
  return SSL_TICKET_RETURN_IGNORE_RENEW;
}

TEST_F(TlsResumptionTest, AServerRefusingItsTicketsStillPasses) {
  g_tickets_refused = 0;
  TlsBackend backend(pki_, [](SSL_CTX* ctx) {
    SSL_CTX_set_session_ticket_cb(ctx, nullptr, RefuseTicket, nullptr);
  });
  Events events;
  const auto got = Run(TlsConfig(pki_), HttpsTarget(backend.port()), 4, events);
  EXPECT_EQ(Handshakes(got), "FFFF");
  for (const ProbeEvent& e : got)
    EXPECT_TRUE(e.outcome.ok()) << e.outcome.detail;
  // Every probe after the first offered the ticket it was given.
  EXPECT_GE(g_tickets_refused.load(), 3);
  EXPECT_EQ(backend.resumed(), 0);
}

}  // namespace
}  // namespace ax::probe
