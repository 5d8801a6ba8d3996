// The running server object on port 0: real UDP and TCP round trips (two
// pipelined queries on one connection), TCP idle/message timeouts and the
// connection limit, and the HTTP surface (healthz, readyz 503 -> 200,
// snapshot status and rollback). Responses are read with ldns.
#include "server/service.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "dns_client.h"
#include "server_test_support.h"
#include "service_fixture.h"

namespace ax::dns {
namespace {

using namespace std::chrono_literals;
using testing::Addresses;
using testing::Bytes;
using testing::ClosedByPeer;
using testing::MakeQuery;
using testing::MakeSnapshotJson;
using testing::ParseReply;
using testing::QuickstartDir;
using testing::ReadFrame;
using testing::SendAll;
using testing::TcpConnect;
using testing::TempDir;
using testing::WaitFor;
using testing::WriteFileAtomically;

Bytes Framed(const Bytes& message) {
  Bytes out = {static_cast<uint8_t>(message.size() >> 8),
               static_cast<uint8_t>(message.size())};
  out.insert(out.end(), message.begin(), message.end());
  return out;
}

class ServiceTest : public testing::ServiceFixture {
 protected:
  // Serves snapshot version 1 from a file, with the admin listener on
  // behind the token "s3cret"; the snapshot file.
  std::filesystem::path StartWithAdmin() {
    const auto file = dir_ / "snapshot.json";
    testing::WriteFile(file, MakeSnapshotJson(1));
    const auto token = dir_.Write("admin-token", "s3cret\n");
    Start({"--snapshot", file.string(), "--admin-listen", "127.0.0.1:0",
           "--admin-token-file", token.string()});
    return file;
  }
};

TEST_F(ServiceTest, UdpRoundTrip) {
  ASSERT_NO_FATAL_FAILURE(StartStandalone());
  const std::optional<Bytes> reply = testing::UdpExchange(
      dns_, MakeQuery("www.example.test.", LDNS_RR_TYPE_A, 4242));
  ASSERT_TRUE(reply.has_value());
  const testing::Pkt pkt = ParseReply(*reply);
  ASSERT_NE(pkt, nullptr);
  EXPECT_EQ(ldns_pkt_id(pkt.get()), 4242);
  EXPECT_TRUE(ldns_pkt_qr(pkt.get()));
  EXPECT_TRUE(ldns_pkt_aa(pkt.get()));
  EXPECT_EQ(ldns_pkt_get_rcode(pkt.get()), LDNS_RCODE_NOERROR);
  const std::vector<std::string> got = Addresses(pkt.get());
  ASSERT_FALSE(got.empty());
  const std::set<std::string> known = NodeAddresses();
  for (const std::string& a : got) EXPECT_TRUE(known.count(a)) << a;
  // Counted after sendmmsg returns, which may be after the client has read.
  EXPECT_TRUE(WaitFor([&] { return service_->udp_stats().sent == 1; }));
}

TEST_F(ServiceTest, UdpOverIpv6) {
  std::filesystem::copy(QuickstartDir(), dir_.path(),
                        std::filesystem::copy_options::recursive);
  ASSERT_NO_FATAL_FAILURE(
      Start({"--standalone", dir_.path().string(), "--listen", "[::1]:0"}));
  const auto& bound = service_->dns_addresses();
  ASSERT_EQ(bound.size(), 2u);  // in --listen order: [::1]:0, 127.0.0.1:0
  EXPECT_EQ(bound[0].ip.family, IpFamily::kV6);
  EXPECT_NE(bound[0].port, 0);
  const auto reply = testing::UdpExchange(
      bound[0], MakeQuery("www.example.test.", LDNS_RR_TYPE_AAAA, 6));
  ASSERT_TRUE(reply.has_value());
  const testing::Pkt pkt = ParseReply(*reply);
  ASSERT_NE(pkt, nullptr);
  EXPECT_EQ(ldns_pkt_get_rcode(pkt.get()), LDNS_RCODE_NOERROR);
}

TEST_F(ServiceTest, TcpPipelinedQueriesOnOneConnection) {
  ASSERT_NO_FATAL_FAILURE(StartStandalone());
  runtime::Fd conn = TcpConnect(dns_);
  ASSERT_TRUE(conn.valid());
  // Both queries in one write: the server must answer each.
  Bytes both = Framed(MakeQuery("www.example.test.", LDNS_RR_TYPE_A, 1));
  const Bytes second =
      Framed(MakeQuery("api.example.test.", LDNS_RR_TYPE_A, 2));
  both.insert(both.end(), second.begin(), second.end());
  ASSERT_TRUE(SendAll(conn.get(), both));
  std::set<uint16_t> ids;
  for (int i = 0; i < 2; ++i) {
    const std::optional<Bytes> reply = ReadFrame(conn.get());
    ASSERT_TRUE(reply.has_value()) << "reply " << i;
    const testing::Pkt pkt = ParseReply(*reply);
    ASSERT_NE(pkt, nullptr);
    EXPECT_EQ(ldns_pkt_get_rcode(pkt.get()), LDNS_RCODE_NOERROR);
    EXPECT_FALSE(Addresses(pkt.get()).empty());
    ids.insert(ldns_pkt_id(pkt.get()));
  }
  EXPECT_EQ(ids, (std::set<uint16_t>{1, 2}));
  // The connection stays open for more.
  ASSERT_TRUE(SendAll(
      conn.get(), Framed(MakeQuery("www.example.test.", LDNS_RR_TYPE_A, 3))));
  EXPECT_TRUE(ReadFrame(conn.get()).has_value());
}

TEST_F(ServiceTest, TcpIdleConnectionsAreClosed) {
  ASSERT_NO_FATAL_FAILURE(StartStandalone({"--tcp-idle-timeout", "200ms"}));
  runtime::Fd conn = TcpConnect(dns_);
  ASSERT_TRUE(conn.valid());
  EXPECT_TRUE(ClosedByPeer(conn.get(), 3000));
  EXPECT_TRUE(WaitFor([&] { return service_->tcp_stats().closed_idle == 1; }));
}

TEST_F(ServiceTest, TcpSlowMessagesAreClosed) {
  ASSERT_NO_FATAL_FAILURE(StartStandalone({"--tcp-message-timeout", "200ms"}));
  runtime::Fd conn = TcpConnect(dns_);
  ASSERT_TRUE(conn.valid());
  const Bytes query = Framed(MakeQuery("www.example.test.", LDNS_RR_TYPE_A, 9));
  // A slowloris client: a few bytes, then nothing.
  ASSERT_TRUE(SendAll(conn.get(), Bytes(query.begin(), query.begin() + 3)));
  EXPECT_TRUE(ClosedByPeer(conn.get(), 3000));
  EXPECT_TRUE(WaitFor([&] { return service_->tcp_stats().closed_slow == 1; }));
}

bool Answered(int fd, uint16_t id) {
  return SendAll(fd,
                 Framed(MakeQuery("www.example.test.", LDNS_RR_TYPE_A, id))) &&
         ReadFrame(fd).has_value();
}

TEST_F(ServiceTest, TcpAtTheLimitANewcomerEvictsTheIdlest) {
  ASSERT_NO_FATAL_FAILURE(StartStandalone({"--tcp-max-connections", "2"}));
  runtime::Fd a = TcpConnect(dns_);
  runtime::Fd b = TcpConnect(dns_);
  ASSERT_TRUE(WaitFor([&] { return service_->tcp_stats().open == 2; }));
  ASSERT_TRUE(Answered(b.get(), 4));  // b was heard from after a
  runtime::Fd c = TcpConnect(dns_);
  ASSERT_TRUE(c.valid());
  EXPECT_TRUE(ClosedByPeer(a.get(), 3000));  // a waited longest
  EXPECT_TRUE(Answered(c.get(), 5));
  EXPECT_TRUE(Answered(b.get(), 6));
  const TcpStats stats = service_->tcp_stats();
  EXPECT_EQ(stats.closed_evicted, 1u);
  EXPECT_EQ(stats.rejected, 0u);
  EXPECT_EQ(stats.open, 2);
}

TEST_F(ServiceTest, TcpAtTheLimitBusyConnectionsAreNotEvicted) {
  ASSERT_NO_FATAL_FAILURE(StartStandalone({"--tcp-max-connections", "1"}));
  runtime::Fd a = TcpConnect(dns_);
  // Mid-message: a has begun a query, so it is not waiting for its client.
  const Bytes query = Framed(MakeQuery("www.example.test.", LDNS_RR_TYPE_A, 7));
  ASSERT_TRUE(SendAll(a.get(), Bytes(query.begin(), query.begin() + 3)));
  ASSERT_TRUE(WaitFor([&] { return service_->tcp_stats().open == 1; }));
  runtime::Fd b = TcpConnect(dns_);
  ASSERT_TRUE(b.valid());  // the kernel accepts; the server closes it at once
  EXPECT_TRUE(ClosedByPeer(b.get(), 3000));
  EXPECT_EQ(service_->tcp_stats().rejected, 1u);
  ASSERT_TRUE(SendAll(a.get(), Bytes(query.begin() + 3, query.end())));
  EXPECT_TRUE(ReadFrame(a.get()).has_value());
}

TEST_F(ServiceTest, TcpOneSourceCannotHoldEveryConnection) {
  ASSERT_NO_FATAL_FAILURE(
      StartStandalone({"--tcp-max-connections", "10",
                       "--tcp-max-connections-per-source", "3"}));
  std::vector<runtime::Fd> hog;
  for (int i = 0; i < 5; ++i) hog.push_back(TcpConnect(dns_, "127.0.0.2"));
  ASSERT_TRUE(
      WaitFor([&] { return service_->tcp_stats().rejected_source == 2; }));
  EXPECT_EQ(service_->tcp_stats().open, 3);
  runtime::Fd other = TcpConnect(dns_, "127.0.0.3");
  EXPECT_TRUE(Answered(other.get(), 8));
  // A slot of the source frees when one of its connections closes.
  hog[0].Reset();
  ASSERT_TRUE(WaitFor([&] { return service_->tcp_stats().open == 3; }));
  runtime::Fd again = TcpConnect(dns_, "127.0.0.2");
  EXPECT_TRUE(Answered(again.get(), 9));
}

TEST_F(ServiceTest, TcpConnectionsCloseAfterTheirQueryBudget) {
  ASSERT_NO_FATAL_FAILURE(StartStandalone({"--tcp-max-queries", "3"}));
  runtime::Fd conn = TcpConnect(dns_);
  Bytes pipelined;
  for (uint16_t id = 1; id <= 5; ++id) {
    const Bytes q = Framed(MakeQuery("www.example.test.", LDNS_RR_TYPE_A, id));
    pipelined.insert(pipelined.end(), q.begin(), q.end());
  }
  // One write: the server reads the five at once. The 4th and 5th are over
  // the budget but already read, so they are answered before the close.
  ASSERT_TRUE(SendAll(conn.get(), pipelined));
  for (uint16_t id = 1; id <= 5; ++id) {
    const std::optional<Bytes> answer = ReadFrame(conn.get());
    ASSERT_TRUE(answer.has_value()) << id;
    const testing::Pkt pkt = ParseReply(*answer);
    ASSERT_NE(pkt, nullptr);
    EXPECT_EQ(ldns_pkt_id(pkt.get()), id);
  }
  EXPECT_TRUE(ClosedByPeer(conn.get(), 3000));
  EXPECT_EQ(service_->tcp_stats().closed_budget, 1u);
  EXPECT_EQ(service_->tcp_stats().queries, 5u);
}

// What the client is sent does not keep its connection: one that asked once
// and only trickles its answers in is closed as idle, though the server still
// has answers going out to it.
TEST_F(ServiceTest, TcpIdleCountsWhatTheClientSends) {
  ASSERT_NO_FATAL_FAILURE(StartStandalone({"--tcp-idle-timeout", "300ms"}));
  const int family = AF_INET;
  runtime::Fd conn(::socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0));
  const int small = 4096;  // set before connect, so the window stays small
  ::setsockopt(conn.get(), SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
  socklen_t len = 0;
  const sockaddr_storage sa = dns_.ToSockaddr(&len);
  ASSERT_EQ(::connect(conn.get(), reinterpret_cast<const sockaddr*>(&sa), len),
            0);
  const Bytes q = Framed(MakeQuery("www.example.test.", LDNS_RR_TYPE_A, 1));
  Bytes burst;
  for (int i = 0; i < 5000; ++i) burst.insert(burst.end(), q.begin(), q.end());
  ::send(conn.get(), burst.data(), burst.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
  // A reader 10 KB/s slow: the answers take far longer than the timeout.
  const auto deadline = std::chrono::steady_clock::now() + 3s;
  uint8_t buf[200];
  while (service_->tcp_stats().closed_idle == 0 &&
         std::chrono::steady_clock::now() < deadline) {
    ::recv(conn.get(), buf, sizeof(buf), MSG_DONTWAIT);
    std::this_thread::sleep_for(20ms);
  }
  EXPECT_EQ(service_->tcp_stats().closed_idle, 1u);
}

TEST_F(ServiceTest, ReadyOnceASnapshotIsLoaded) {
  const auto file = dir_ / "snapshot.json";
  ASSERT_NO_FATAL_FAILURE(Start({"--snapshot", file.string()}));
  httplib::Client http = Http();
  EXPECT_EQ(http.Get("/healthz")->status, 200);
  auto ready = http.Get("/readyz");
  EXPECT_EQ(ready->status, 503);
  EXPECT_NE(ready->body.find("cannot read snapshot file"), std::string::npos)
      << ready->body;
  // Nothing loaded: queries still get an answer (SERVFAIL), never silence.
  const auto reply = testing::UdpExchange(
      dns_, MakeQuery("www.example.test.", LDNS_RR_TYPE_A, 7));
  ASSERT_TRUE(reply.has_value());
  EXPECT_EQ(ldns_pkt_get_rcode(ParseReply(*reply).get()), LDNS_RCODE_SERVFAIL);

  WriteFileAtomically(file, MakeSnapshotJson(1));
  EXPECT_TRUE(WaitFor([&] { return http.Get("/readyz")->status == 200; }));
}

TEST_F(ServiceTest, SnapshotStatusAndRollbackOverHttp) {
  std::filesystem::path file;
  ASSERT_NO_FATAL_FAILURE(file = StartWithAdmin());
  auto status = nlohmann::json::parse(Api().Get("/v1/snapshot")->body);
  EXPECT_EQ(status["current"]["version"], 1);
  EXPECT_EQ(status["current"]["source"], "file:" + file.string());

  httplib::Client admin = Admin();
  admin.set_bearer_token_auth("s3cret");
  auto res = admin.Post("/v1/snapshot/rollback");
  EXPECT_EQ(res->status, 409);  // nothing older yet
  EXPECT_NE(res->body.find("no earlier snapshot"), std::string::npos);

  WriteFileAtomically(file, MakeSnapshotJson(2, 1));
  ASSERT_TRUE(WaitFor(
      [&] { return service_->store().Status().current->version == 2; }));
  EXPECT_EQ(admin.Post("/v1/snapshot/rollback?version=x")->status, 400);
  EXPECT_EQ(admin.Post("/v1/snapshot/rollback?version=9")->status, 409);
  res = admin.Post("/v1/snapshot/rollback?version=1");
  ASSERT_EQ(res->status, 200) << res->body;
  status = nlohmann::json::parse(res->body);
  EXPECT_EQ(status["current"]["version"], 1);
  EXPECT_EQ(status["rolledBack"], true);
  EXPECT_EQ(status["history"].size(), 2u);
}

// Rollback is the admin listener's alone: not on the operating or the API
// listener, and there only with the token (issue 15).
TEST_F(ServiceTest, RollbackNeedsTheAdminListenerAndItsToken) {
  std::filesystem::path file;
  ASSERT_NO_FATAL_FAILURE(file = StartWithAdmin());
  WriteFileAtomically(file, MakeSnapshotJson(2, 1));
  ASSERT_TRUE(WaitFor(
      [&] { return service_->store().Status().current->version == 2; }));
  for (const runtime::Endpoint* at :
       {&service_->http_address(), &service_->api_address()}) {
    auto res = Client(*at).Post("/v1/snapshot/rollback");
    EXPECT_EQ(res->status, 404);
    EXPECT_EQ(nlohmann::json::parse(res->body)["error"],
              "/v1/snapshot/rollback is served on the admin listener "
              "(--admin-listen)");
  }
  EXPECT_EQ(nlohmann::json::parse(Http().Get("/v1/snapshot")->body)["error"],
            "/v1/snapshot is served on the API listener (--api-listen)");

  auto res = Admin().Post("/v1/snapshot/rollback");
  EXPECT_EQ(res->status, 401);
  EXPECT_EQ(res->get_header_value("WWW-Authenticate"),
            "Bearer realm=\"ax-dns admin\"");
  httplib::Client wrong = Admin();
  wrong.set_bearer_token_auth("guess");
  EXPECT_EQ(wrong.Post("/v1/snapshot/rollback")->status, 401);
  testing::WriteFile(dir_ / "admin-token",
                     "\n");  // an empty Secret lets nobody in
  httplib::Client right = Admin();
  right.set_bearer_token_auth("s3cret");
  EXPECT_EQ(right.Post("/v1/snapshot/rollback")->status, 503);
  EXPECT_EQ(service_->store().Status().current->version, 2);

  // No admin listener without a token file.
  ConfigResult config = ParseConfig(
      {"--snapshot", file.string(), "--admin-listen", "127.0.0.1:0"}, {});
  EXPECT_FALSE(config.ok);
  EXPECT_EQ(config.error,
            "--admin-listen needs --admin-token-file: mutating endpoints are "
            "never open");
}

TEST(ServiceStartTest, UnusableGeoDatabaseIsFatal) {
  TempDir dir;
  ConfigResult config = ParseConfig(
      {"--snapshot", (dir / "s.json").string(), "--listen", "127.0.0.1:0",
       "--http-listen", "", "--geo-db", (dir / "missing.mmdb").string()},
      {});
  ASSERT_TRUE(config.ok) << config.error;
  Service service(config.config);
  std::string error;
  EXPECT_FALSE(service.Start(&error));
  EXPECT_NE(error.find("geo databases"), std::string::npos) << error;
}

TEST(ServiceStartTest, AddressInUseIsFatal) {
  std::string error;
  runtime::Endpoint any;
  ASSERT_TRUE(runtime::ParseEndpoint("127.0.0.1:0", &any, &error));
  // A socket without SO_REUSEPORT holds the port, so ax-dns cannot share it.
  runtime::Fd holder(::socket(AF_INET, SOCK_DGRAM, 0));
  socklen_t len = 0;
  const sockaddr_storage sa = any.ToSockaddr(&len);
  ASSERT_EQ(::bind(holder.get(), reinterpret_cast<const sockaddr*>(&sa), len),
            0);
  TempDir dir;
  ConfigResult config = ParseConfig(
      {"--snapshot", (dir / "s.json").string(), "--listen",
       runtime::LocalEndpoint(holder.get()).ToString(), "--http-listen", ""},
      {});
  ASSERT_TRUE(config.ok) << config.error;
  Service service(config.config);
  EXPECT_FALSE(service.Start(&error));
  EXPECT_NE(error.find("bind"), std::string::npos) << error;
}

}  // namespace
}  // namespace ax::dns
