// A tiny DNS client for the server tests: queries built and responses read by
// ldns (independent of our wire code), sent over real UDP and TCP sockets
// with timeouts so a broken server fails the test instead of hanging it.
#pragma once

#include <ldns/ldns.h>
#include <poll.h>
#include <sys/socket.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ax/runtime/net.h"

namespace ax::dns::testing {

using Bytes = std::vector<uint8_t>;

struct PktFree {
  void operator()(ldns_pkt* p) const { ldns_pkt_free(p); }
};
using Pkt = std::unique_ptr<ldns_pkt, PktFree>;

inline Bytes MakeQuery(const std::string& name, ldns_rr_type type,
                       uint16_t id) {
  ldns_pkt* pkt = nullptr;
  ldns_pkt_query_new_frm_str(&pkt, name.c_str(), type, LDNS_RR_CLASS_IN,
                             LDNS_RD);
  ldns_pkt_set_id(pkt, id);
  uint8_t* wire = nullptr;
  size_t size = 0;
  ldns_pkt2wire(&wire, pkt, &size);
  Bytes out(wire, wire + size);
  free(wire);
  ldns_pkt_free(pkt);
  return out;
}

inline Pkt ParseReply(const Bytes& wire) {
  ldns_pkt* pkt = nullptr;
  if (ldns_wire2pkt(&pkt, wire.data(), wire.size()) != LDNS_STATUS_OK) {
    return nullptr;
  }
  return Pkt(pkt);
}

// The answer section's A/AAAA addresses as text.
inline std::vector<std::string> Addresses(const ldns_pkt* pkt) {
  std::vector<std::string> out;
  const ldns_rr_list* answer = ldns_pkt_answer(pkt);
  for (size_t i = 0; i < ldns_rr_list_rr_count(answer); ++i) {
    const ldns_rr* rr = ldns_rr_list_rr(answer, i);
    const ldns_rr_type t = ldns_rr_get_type(rr);
    if (t != LDNS_RR_TYPE_A && t != LDNS_RR_TYPE_AAAA) continue;
    char* text = ldns_rdf2str(ldns_rr_rdf(rr, 0));
    out.emplace_back(text);
    free(text);
  }
  return out;
}

inline bool WaitReadable(int fd, int timeout_ms) {
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, timeout_ms) == 1;
}

// One query over UDP; nullopt when nothing came back within the timeout.
inline std::optional<Bytes> UdpExchange(const runtime::Endpoint& server,
                                        const Bytes& query,
                                        int timeout_ms = 2000) {
  const int family = server.ip.family == IpFamily::kV4 ? AF_INET : AF_INET6;
  runtime::Fd fd(::socket(family, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  socklen_t len = 0;
  const sockaddr_storage sa = server.ToSockaddr(&len);
  ::sendto(fd.get(), query.data(), query.size(), 0,
           reinterpret_cast<const sockaddr*>(&sa), len);
  if (!WaitReadable(fd.get(), timeout_ms)) return std::nullopt;
  Bytes buf(65535);
  const ssize_t n = ::recv(fd.get(), buf.data(), buf.size(), 0);
  if (n <= 0) return std::nullopt;
  buf.resize(static_cast<size_t>(n));
  return buf;
}

// A connection to `server`, from the loopback address `from` when given (any
// of 127.0.0.0/8 is this host, so tests can be several sources).
inline runtime::Fd TcpConnect(const runtime::Endpoint& server,
                              const char* from = nullptr) {
  const int family = server.ip.family == IpFamily::kV4 ? AF_INET : AF_INET6;
  runtime::Fd fd(::socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (from) {
    runtime::Endpoint local{*ParseIp(from), 0};
    socklen_t local_len = 0;
    const sockaddr_storage la = local.ToSockaddr(&local_len);
    if (::bind(fd.get(), reinterpret_cast<const sockaddr*>(&la), local_len) !=
        0) {
      return runtime::Fd();
    }
  }
  socklen_t len = 0;
  const sockaddr_storage sa = server.ToSockaddr(&len);
  if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&sa), len) != 0) {
    return runtime::Fd();
  }
  return fd;
}

inline bool SendAll(int fd, const Bytes& bytes) {
  return ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL) ==
         static_cast<ssize_t>(bytes.size());
}

// Reads exactly n bytes; false on EOF, error or timeout.
inline bool ReadExactly(int fd, uint8_t* out, size_t n, int timeout_ms) {
  for (size_t got = 0; got < n;) {
    if (!WaitReadable(fd, timeout_ms)) return false;
    const ssize_t r = ::recv(fd, out + got, n - got, 0);
    if (r <= 0) return false;
    got += static_cast<size_t>(r);
  }
  return true;
}

// One length-prefixed message; nullopt on EOF or timeout.
inline std::optional<Bytes> ReadFrame(int fd, int timeout_ms = 2000) {
  uint8_t head[2];
  if (!ReadExactly(fd, head, 2, timeout_ms)) return std::nullopt;
  Bytes msg(size_t{head[0]} << 8 | head[1]);
  if (!ReadExactly(fd, msg.data(), msg.size(), timeout_ms)) return std::nullopt;
  return msg;
}

// True when the server closed the connection within the timeout.
inline bool ClosedByPeer(int fd, int timeout_ms) {
  if (!WaitReadable(fd, timeout_ms)) return false;
  uint8_t byte = 0;
  return ::recv(fd, &byte, 1, 0) <= 0;
}

}  // namespace ax::dns::testing
