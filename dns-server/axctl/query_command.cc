// axctl query: flags, the server's address (a literal, or a name through
// getaddrinfo) and the exchange: UDP with retries, then TCP when the answer is
// truncated (RFC 7766 §5), or TCP alone with --tcp.
#include "axctl/query_command.h"

#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <optional>
#include <set>
#include <string_view>

#include "ax/runtime/net.h"
#include "ax/runtime/random_seed.h"
#include "axctl/dns_query.h"
#include "wire/protocol.h"

namespace ax {
namespace {

using Clock = std::chrono::steady_clock;

constexpr char kDefaultServer[] = "127.0.0.1:53";
constexpr uint16_t kDnsPort = 53;
constexpr double kDefaultTimeoutSeconds = 2;
constexpr double kMaxTimeoutSeconds = 3600;
constexpr int kUdpTries = 3;  // the first send and 2 retries

// --server split into host and port: "HOST", "HOST:PORT", "[IPV6]:PORT",
// "[IPV6]" or a bare IPv6 literal (more than one colon: no port).
struct ServerText {
  std::string host;
  uint16_t port = kDnsPort;
};

bool SplitServer(std::string_view text, ServerText* out) {
  std::optional<std::string_view> port;
  if (!text.empty() && text.front() == '[') {
    const size_t close = text.find(']');
    if (close == std::string_view::npos) return false;
    out->host = text.substr(1, close - 1);
    const std::string_view rest = text.substr(close + 1);
    if (!rest.empty()) {
      if (rest.front() != ':') return false;
      port = rest.substr(1);
    }
  } else if (std::count(text.begin(), text.end(), ':') == 1) {
    const size_t colon = text.find(':');
    out->host = text.substr(0, colon);
    port = text.substr(colon + 1);
  } else {
    out->host = text;
  }
  if (out->host.empty()) return false;
  if (!port) return true;
  unsigned value = 0;
  const auto [end, ec] =
      std::from_chars(port->data(), port->data() + port->size(), value);
  if (ec != std::errc() || end != port->data() + port->size() || value == 0 ||
      value > 65535) {
    return false;
  }
  out->port = static_cast<uint16_t>(value);
  return true;
}

struct Exchange {
  runtime::Endpoint server;
  std::string label;  // how messages name the server
  std::chrono::duration<double> timeout;
  std::vector<uint8_t> query;
};

// An IP literal as is; a name through getaddrinfo (in a pod, a Service name
// through the cluster DNS), taking its first, preferred address (RFC 6724).
bool Resolve(const ServerText& text, Exchange* ex, std::string* error) {
  if (const std::optional<IpAddress> ip = ParseIp(text.host)) {
    ex->server = {*ip, text.port};
    ex->label = ex->server.ToString();
    return true;
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo* found = nullptr;
  const int rc = ::getaddrinfo(text.host.c_str(), nullptr, &hints, &found);
  if (rc != 0) {
    *error = text.host + ": " + ::gai_strerror(rc);
    return false;
  }
  sockaddr_storage sa{};
  std::memcpy(&sa, found->ai_addr,
              std::min<size_t>(found->ai_addrlen, sizeof(sa)));
  ::freeaddrinfo(found);
  ex->server = runtime::Endpoint::FromSockaddr(sa);
  ex->server.port = text.port;
  ex->label = text.host + " (" + ex->server.ToString() + ")";
  return true;
}

bool Fail(std::string* error, std::string what) {
  *error = std::move(what);
  return false;
}

// Waits for `events` on `fd` until `deadline`; false when it passes first.
// Errors and hang-ups count as ready: the next send or recv reports them.
bool WaitUntil(int fd, short events, Clock::time_point deadline) {
  while (true) {
    const int64_t left =
        std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now())
            .count();
    if (left <= 0) return false;
    pollfd p{fd, events, 0};
    const int n =
        ::poll(&p, 1, static_cast<int>(std::min<int64_t>(left, INT_MAX)));
    if (n > 0) return true;
    if (n < 0 && errno != EINTR) return false;
  }
}

// A non-blocking socket of `type` connected (TCP: connecting) to the server;
// a connected UDP socket receives only the server's datagrams and its ICMP
// errors (port unreachable reads as "Connection refused").
runtime::Fd Connect(const runtime::Endpoint& to, int type, std::string* error) {
  const int family = to.ip.family == IpFamily::kV4 ? AF_INET : AF_INET6;
  runtime::Fd fd(::socket(family, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  socklen_t len = 0;
  const sockaddr_storage sa = to.ToSockaddr(&len);
  if (!fd.valid() ||
      (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&sa), len) != 0 &&
       errno != EINPROGRESS)) {
    *error = runtime::ErrnoText(errno);
    return runtime::Fd();
  }
  return fd;
}

// Up to kUdpTries sends, each followed by `timeout` of waiting for a datagram
// that answers this query; any other (late, stray, spoofed) is dropped. True
// with an answer, which may be truncated (then TC is set).
bool AskUdp(const Exchange& ex, DnsReply* answer, std::string* error) {
  runtime::Fd fd = Connect(ex.server, SOCK_DGRAM, error);
  if (!fd.valid()) return Fail(error, "UDP: " + *error);
  std::vector<uint8_t> buffer(dns::kMaxMessageSize);
  for (int attempt = 0; attempt < kUdpTries; ++attempt) {
    if (::send(fd.get(), ex.query.data(), ex.query.size(), 0) < 0) {
      return Fail(error, "UDP: " + runtime::ErrnoText(errno));
    }
    const Clock::time_point deadline =
        Clock::now() + std::chrono::duration_cast<Clock::duration>(ex.timeout);
    while (WaitUntil(fd.get(), POLLIN, deadline)) {
      const ssize_t n = ::recv(fd.get(), buffer.data(), buffer.size(), 0);
      if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
      if (n < 0) return Fail(error, "UDP: " + runtime::ErrnoText(errno));
      const AnswerStatus status = ParseAnswer(
          {buffer.data(), static_cast<size_t>(n)}, ex.query, answer, error);
      if (status == AnswerStatus::kNotOurs) continue;
      // A truncated answer is asked again over TCP whatever else it holds.
      return status == AnswerStatus::kOk || (answer->flags & dns::kFlagTc);
    }
  }
  char seconds[32];
  std::snprintf(seconds, sizeof(seconds), "%g", ex.timeout.count());
  return Fail(error, "no answer over UDP (" + std::to_string(kUdpTries) +
                         " tries, " + seconds + " s each)");
}

// Sends or receives all of `octets` on a non-blocking stream by `deadline`.
bool Transfer(int fd, std::span<uint8_t> octets, bool sending,
              Clock::time_point deadline, std::string* error) {
  for (size_t done = 0; done < octets.size();) {
    if (!WaitUntil(fd, sending ? POLLOUT : POLLIN, deadline)) {
      return Fail(error, "TCP: timed out");
    }
    const std::span<uint8_t> rest = octets.subspan(done);
    const ssize_t n = sending
                          ? ::send(fd, rest.data(), rest.size(), MSG_NOSIGNAL)
                          : ::recv(fd, rest.data(), rest.size(), 0);
    if (n == 0 && !sending) {
      return Fail(error, "TCP: connection closed before the whole answer");
    }
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    if (n < 0) return Fail(error, "TCP: " + runtime::ErrnoText(errno));
    done += static_cast<size_t>(n);
  }
  return true;
}

// One message each way behind a 2-octet length (RFC 1035 §4.2.2), connect
// included within one `timeout`. A connect that fails (refused) surfaces at
// the first send.
bool AskTcp(const Exchange& ex, DnsReply* answer, std::string* error) {
  const Clock::time_point deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(ex.timeout);
  runtime::Fd fd = Connect(ex.server, SOCK_STREAM, error);
  if (!fd.valid()) return Fail(error, "TCP: " + *error);
  std::vector<uint8_t> framed = {static_cast<uint8_t>(ex.query.size() >> 8),
                                 static_cast<uint8_t>(ex.query.size())};
  framed.insert(framed.end(), ex.query.begin(), ex.query.end());
  uint8_t length[2];
  if (!Transfer(fd.get(), framed, true, deadline, error) ||
      !Transfer(fd.get(), length, false, deadline, error)) {
    return false;
  }
  std::vector<uint8_t> message(size_t{length[0]} << 8 | length[1]);
  if (!Transfer(fd.get(), message, false, deadline, error)) return false;
  switch (ParseAnswer(message, ex.query, answer, error)) {
    case AnswerStatus::kOk:
      return true;
    case AnswerStatus::kNotOurs:
      return Fail(error, "TCP: the answer's ID or question is not the query's");
    case AnswerStatus::kMalformed:
      return false;
  }
  return false;
}

int Usage(const std::string& problem) {
  std::cerr << "axctl query: " << problem << "\nusage:\n" << kQueryUsage;
  return 2;
}

}  // namespace

int QueryCommand(const Args& args) {
  static const std::set<std::string> kFlags = {
      "--type",    "--server", "--subnet", "--tcp",
      "--timeout", "--expect", "--json"};
  for (const auto& [flag, values] : args.flags) {
    if (!kFlags.count(flag)) return Usage("unknown flag " + flag);
  }
  if (args.positional.size() != 1) return Usage("one NAME expected");
  QuerySpec spec;
  spec.name = args.positional[0];
  std::string type = args.Has("--type") ? args.Get("--type") : "A";
  std::transform(type.begin(), type.end(), type.begin(),
                 [](unsigned char c) { return std::toupper(c); });
  const std::optional<uint16_t> qtype = ParseQueryType(type);
  if (!qtype) {
    return Usage("--type: '" + args.Get("--type") +
                 "' is not one of A, AAAA, TXT, CNAME, SOA, NS");
  }
  spec.qtype = *qtype;
  if (args.Has("--subnet")) {
    spec.subnet = ParseSubnet(args.Get("--subnet"));
    if (!spec.subnet) {
      return Usage("--subnet: '" + args.Get("--subnet") +
                   "' is not ADDRESS/LENGTH");
    }
  }
  std::vector<IpAddress> expect;
  for (const std::string& text : args.All("--expect")) {
    const std::optional<IpAddress> ip = ParseIp(text);
    if (!ip) return Usage("--expect: '" + text + "' is not an IP address");
    expect.push_back(*ip);
  }
  Exchange ex;
  ex.timeout = std::chrono::duration<double>(kDefaultTimeoutSeconds);
  if (args.Has("--timeout")) {
    const std::string text = args.Get("--timeout");
    double seconds = 0;
    const auto [end, ec] =
        std::from_chars(text.data(), text.data() + text.size(), seconds);
    if (ec != std::errc() || end != text.data() + text.size() ||
        !(seconds > 0 && seconds <= kMaxTimeoutSeconds)) {
      return Usage("--timeout: '" + text + "' is not a number of seconds");
    }
    ex.timeout = std::chrono::duration<double>(seconds);
  }
  const std::string server_text =
      args.Has("--server") ? args.Get("--server") : kDefaultServer;
  ServerText server;
  if (!SplitServer(server_text, &server)) {
    return Usage("--server: '" + server_text + "' is not HOST[:PORT]");
  }
  spec.id = static_cast<uint16_t>(runtime::RandomSeed());
  std::optional<std::vector<uint8_t>> query = BuildQuery(spec);
  if (!query) {
    return Usage("'" + spec.name +
                 "' is not a domain name (empty label, label over 63 or name "
                 "over 255 octets)");
  }
  ex.query = std::move(*query);

  std::string error;
  DnsReply answer;
  if (!Resolve(server, &ex, &error)) {
    std::cerr << "axctl query: " << error << "\n";
    return 1;
  }
  const bool answered =
      args.Has("--tcp")
          ? AskTcp(ex, &answer, &error)
          : AskUdp(ex, &answer, &error) &&
                (!(answer.flags & dns::kFlagTc) || AskTcp(ex, &answer, &error));
  if (!answered) {
    std::cerr << "axctl query: " << ex.label << ": " << error << "\n";
    return 1;
  }
  std::cout << (args.Has("--json") ? AnswerToJson(answer) + "\n"
                                   : AnswerToText(answer));
  const std::string what = spec.name + " " + type + ": ";
  if (answer.rcode != dns::kRcodeNoError) {
    std::cerr << "axctl query: " << what << RcodeName(answer.rcode) << " from "
              << ex.label << "\n";
    return 1;
  }
  if (const std::optional<std::string> miss = ExpectMismatch(answer, expect)) {
    std::cerr << "axctl query: " << what << *miss << "\n";
    return 1;
  }
  return 0;
}

}  // namespace ax
