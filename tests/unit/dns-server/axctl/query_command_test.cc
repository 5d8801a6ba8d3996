// axctl query against a DNS responder on loopback port 0: a thread here that
// reads each query with ax-dns's own parser and answers with its writer (this
// binary does not link the server). UDP, TCP, truncation falling back to TCP,
// stray datagrams, retries and timeouts, refusals and every exit code.
#include "axctl/query_command.h"

#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "ax/runtime/net.h"
#include "wait_for.h"
#include "wire/message_reader.h"
#include "wire/message_writer.h"

namespace ax {
namespace {

using Bytes = std::vector<uint8_t>;

// Answers www.example.test with A 192.0.2.10 (TTL 30) and anything else with
// NXDOMAIN, echoing ECS with SCOPE 24, on one UDP and one TCP port.
class FakeDns {
 public:
  enum class Udp { kAnswer, kTruncate, kStrayFirst, kSilent };

  explicit FakeDns(Udp udp = Udp::kAnswer) : udp_mode_(udp) {
    // One port for both, as a real server has it (a TC answer is asked again
    // at the same address): the kernel's free UDP port may be in use for TCP
    // (another test's client connection), then another one is tried.
    std::string error;
    const IpAddress loopback = *ParseIp("127.0.0.1");
    for (int attempt = 0; attempt < 20 && !tcp_.valid(); ++attempt) {
      udp_ = runtime::BindSocket({loopback, 0}, SOCK_DGRAM, &error);
      port_ = runtime::LocalEndpoint(udp_.get()).port;
      tcp_ = runtime::BindSocket({loopback, port_}, SOCK_STREAM, &error);
    }
    EXPECT_TRUE(udp_.valid() && tcp_.valid()) << error;
    EXPECT_EQ(::listen(tcp_.get(), 8), 0);
    thread_ = std::thread([this] { Run(); });
  }
  ~FakeDns() {
    stop_.Signal();
    thread_.join();
  }

  std::string server() const { return "127.0.0.1:" + std::to_string(port_); }
  std::atomic<int> udp_queries{0};
  std::atomic<int> tcp_queries{0};

 private:
  void Run() {
    while (true) {
      pollfd fds[3] = {{stop_.fd(), POLLIN, 0},
                       {udp_.get(), POLLIN, 0},
                       {tcp_.get(), POLLIN, 0}};
      ::poll(fds, 3, -1);
      if (fds[0].revents) return;
      if (fds[1].revents) ServeUdp();
      if (fds[2].revents) ServeTcp();
    }
  }

  void ServeUdp() {
    Bytes query(512);
    sockaddr_storage from{};
    socklen_t from_len = sizeof(from);
    const ssize_t n = ::recvfrom(udp_.get(), query.data(), query.size(), 0,
                                 reinterpret_cast<sockaddr*>(&from), &from_len);
    if (n <= 0) return;
    query.resize(static_cast<size_t>(n));
    ++udp_queries;
    if (udp_mode_ == Udp::kSilent) return;
    const Bytes answer = DnsReply(query, udp_mode_ == Udp::kTruncate);
    const auto send = [&](const Bytes& message) {
      ::sendto(udp_.get(), message.data(), message.size(), 0,
               reinterpret_cast<const sockaddr*>(&from), from_len);
    };
    if (udp_mode_ == Udp::kStrayFirst) {
      Bytes stray = answer;
      stray[0] ^= 0xFF;  // another ID
      send(stray);
    }
    send(answer);
  }

  void ServeTcp() {
    runtime::Fd conn(::accept4(tcp_.get(), nullptr, nullptr, SOCK_CLOEXEC));
    if (!conn.valid()) return;
    const timeval timeout{2, 0};
    ::setsockopt(conn.get(), SOL_SOCKET, SO_RCVTIMEO, &timeout,
                 sizeof(timeout));
    uint8_t head[2];
    if (::recv(conn.get(), head, 2, MSG_WAITALL) != 2) return;
    Bytes query(size_t{head[0]} << 8 | head[1]);
    if (::recv(conn.get(), query.data(), query.size(), MSG_WAITALL) !=
        static_cast<ssize_t>(query.size())) {
      return;
    }
    ++tcp_queries;
    const Bytes answer = DnsReply(query, false);
    Bytes framed = {static_cast<uint8_t>(answer.size() >> 8),
                    static_cast<uint8_t>(answer.size())};
    framed.insert(framed.end(), answer.begin(), answer.end());
    ::send(conn.get(), framed.data(), framed.size(), MSG_NOSIGNAL);
  }

  // Truncated: the question and OPT only, with TC (RFC 2181 §9).
  static Bytes DnsReply(const Bytes& query, bool truncate) {
    dns::ParsedQuery q;
    EXPECT_EQ(dns::ParseQuery(query, &q), dns::ParseStatus::kOk);
    Bytes out(1232);
    dns::MessageWriter w(out, out.size());
    w.header().id = q.header.id;
    w.header().flags =
        dns::kFlagQr | dns::kFlagAa | (truncate ? dns::kFlagTc : 0);
    w.AddQuestion(q.question.name, q.question.qtype, q.question.qclass);
    if (q.question.lower.key() != *dns::EncodeName("www.example.test")) {
      w.header().flags |= dns::kRcodeNxDomain;
    } else if (!truncate) {
      const uint8_t address[4] = {192, 0, 2, 10};
      w.AddRecord(dns::Section::kAnswer, q.question.name.wire(), dns::kTypeA,
                  dns::kClassIn, 30, address);
    }
    dns::ClientSubnet ecs = q.edns.client_subnet;
    ecs.scope_prefix = 24;
    dns::EdnsReply opt;
    if (q.edns.has_client_subnet) opt.client_subnet = &ecs;
    dns::AddOpt(w, opt);
    out.resize(w.Finish());
    return out;
  }

  Udp udp_mode_;
  runtime::Fd udp_;
  runtime::Fd tcp_;
  uint16_t port_ = 0;
  runtime::StopSignal stop_;
  std::thread thread_;
};

struct Outcome {
  int code = -1;
  std::string out;
  std::string err;
};

// `axctl query WORDS...` as main parses it.
Outcome Query(std::vector<std::string> words) {
  std::vector<char*> argv = {const_cast<char*>("axctl"),
                             const_cast<char*>("query")};
  for (std::string& w : words) argv.push_back(w.data());
  const Args args = ParseArgs(static_cast<int>(argv.size()), argv.data(), 2,
                              {"--tcp", "--json"});
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  Outcome run;
  run.code = QueryCommand(args);
  std::cout.flush();
  run.out = ::testing::internal::GetCapturedStdout();
  run.err = ::testing::internal::GetCapturedStderr();
  return run;
}

constexpr char kWwwText[] =
    "status: NOERROR, flags: qr aa, answers: 1\n"
    "www.example.test. 30 IN A 192.0.2.10\n";

TEST(QueryCommandTest, UdpWithSubnetAsJson) {
  FakeDns dns;
  const Outcome run =
      Query({"www.example.test", "--server", dns.server(), "--subnet",
             "198.51.100.7/24", "--json", "--expect", "192.0.2.10"});
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(run.out,
            R"({"rcode":"NOERROR","flags":["qr","aa"],"answers":[{"name":)"
            R"("www.example.test.","type":"A","ttl":30,"data":"192.0.2.10"}],)"
            R"("ecs_scope":24})"
            "\n");
  EXPECT_EQ(run.err, "");
  EXPECT_EQ(dns.udp_queries, 1);
  EXPECT_EQ(dns.tcp_queries, 0);
}

TEST(QueryCommandTest, TcpWhenAsked) {
  FakeDns dns;
  const Outcome run = Query(
      {"www.example.test", "--server", dns.server(), "--tcp", "--type", "a"});
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(run.out, kWwwText);
  EXPECT_EQ(dns.udp_queries, 0);
  EXPECT_EQ(dns.tcp_queries, 1);
}

TEST(QueryCommandTest, TruncatedUdpAnswerIsAskedAgainOverTcp) {
  FakeDns dns(FakeDns::Udp::kTruncate);
  const Outcome run = Query({"www.example.test", "--server", dns.server()});
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(run.out, kWwwText);
  EXPECT_EQ(dns.udp_queries, 1);
  EXPECT_EQ(dns.tcp_queries, 1);
}

TEST(QueryCommandTest, DatagramWithAnotherIdIsIgnored) {
  FakeDns dns(FakeDns::Udp::kStrayFirst);
  const Outcome run = Query({"www.example.test", "--server", dns.server()});
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(run.out, kWwwText);
  EXPECT_EQ(dns.udp_queries, 1);
}

TEST(QueryCommandTest, SilentServerGetsTwoRetriesThenFails) {
  FakeDns dns(FakeDns::Udp::kSilent);
  const Outcome run =
      Query({"www.example.test", "--server", dns.server(), "--timeout", "0.1"});
  EXPECT_EQ(run.code, 1);
  EXPECT_EQ(run.out, "");
  EXPECT_EQ(run.err, "axctl query: " + dns.server() +
                         ": no answer over UDP (3 tries, 0.1 s each)\n");
  EXPECT_TRUE(testing::WaitFor([&] { return dns.udp_queries == 3; }));
}

TEST(QueryCommandTest, ErrorRcodeAndUnexpectedAddressExitOne) {
  FakeDns dns;
  const Outcome missing =
      Query({"missing.example.test", "--server", dns.server(), "--tcp"});
  EXPECT_EQ(missing.code, 1);
  EXPECT_EQ(missing.out, "status: NXDOMAIN, flags: qr aa, answers: 0\n");
  EXPECT_EQ(missing.err, "axctl query: missing.example.test A: NXDOMAIN from " +
                             dns.server() + "\n");

  const Outcome other =
      Query({"www.example.test", "--server", dns.server(), "--expect",
             "198.51.100.20", "--expect", "2001:db8::1"});
  EXPECT_EQ(other.code, 1);
  EXPECT_EQ(other.out, kWwwText);
  EXPECT_EQ(other.err,
            "axctl query: www.example.test A: answer 192.0.2.10 has none of "
            "198.51.100.20, 2001:db8::1\n");
}

TEST(QueryCommandTest, RefusedIsANetworkErrorNamingTheServer) {
  // A port nobody listens on: bound for a moment, then released.
  std::string error;
  runtime::Fd probe =
      runtime::BindSocket({*ParseIp("127.0.0.1"), 0}, SOCK_DGRAM, &error);
  const std::string server =
      "127.0.0.1:" + std::to_string(runtime::LocalEndpoint(probe.get()).port);
  probe.Reset();
  for (const bool tcp : {false, true}) {
    std::vector<std::string> words = {"www.example.test", "--server", server};
    if (tcp) words.push_back("--tcp");
    const Outcome run = Query(words);
    EXPECT_EQ(run.code, 1) << tcp;
    EXPECT_EQ(run.err.rfind("axctl query: " + server + ": ", 0), 0) << run.err;
    EXPECT_NE(run.err.find("Connection refused"), std::string::npos) << run.err;
  }
}

TEST(QueryCommandTest, BadUsageExitsTwo) {
  const std::vector<std::vector<std::string>> bad = {
      {},
      {"a.test", "b.test"},
      {"www..example.test"},
      {"a.test", "--type", "MX"},
      {"a.test", "--type"},
      {"a.test", "--subnet", "192.0.2.0/33"},
      {"a.test", "--expect", "not-an-ip"},
      {"a.test", "--timeout", "0"},
      {"a.test", "--timeout", "2s"},
      {"a.test", "--server", ""},
      {"a.test", "--server", "127.0.0.1:0"},
      {"a.test", "--server", "127.0.0.1:99999"},
      {"a.test", "--server", "[::1"},
      {"a.test", "--server", "[::1]53"},
      {"a.test", "--bogus", "x"},
  };
  for (const std::vector<std::string>& words : bad) {
    const Outcome run = Query(words);
    EXPECT_EQ(run.code, 2) << ::testing::PrintToString(words);
    EXPECT_NE(run.err.find("usage:\n"), std::string::npos) << run.err;
  }
}

}  // namespace
}  // namespace ax
