// Small socket building blocks shared by the UDP, TCP and HTTP edges: an owning
// file descriptor, "ADDR:PORT" endpoints, a stop signal (eventfd) and the
// socket options every listener sets. No protocol logic lives here.
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>

#include "ax/ip.h"

namespace ax::runtime {

// Owns one file descriptor; closes it on destruction.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Fd& operator=(Fd&& other) noexcept;
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { Reset(); }

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  void Reset(int fd = -1);

 private:
  int fd_ = -1;
};

// A listen or peer address. `port` 0 in a listen endpoint asks the kernel for
// a free port; the bound port is read back after bind.
struct Endpoint {
  IpAddress ip;
  uint16_t port = 0;

  std::string ToString() const;  // "127.0.0.1:53", "[::1]:53"
  sockaddr_storage ToSockaddr(socklen_t* len) const;
  // Inline: the UDP workers convert every datagram's source, and a call
  // returns the endpoint through memory that the caller then reads back
  // wider than it was written (a stalled store-to-load forward).
  static Endpoint FromSockaddr(const sockaddr_storage& sa) {
    Endpoint e;
    if (sa.ss_family == AF_INET) {
      const auto* in = reinterpret_cast<const sockaddr_in*>(&sa);
      e.ip.family = IpFamily::kV4;
      std::memcpy(e.ip.bytes.data(), &in->sin_addr, 4);
      e.port = ntohs(in->sin_port);
    } else if (sa.ss_family == AF_INET6) {
      const auto* in6 = reinterpret_cast<const sockaddr_in6*>(&sa);
      e.ip.family = IpFamily::kV6;
      std::memcpy(e.ip.bytes.data(), &in6->sin6_addr, 16);
      e.port = ntohs(in6->sin6_port);
    }
    return e;
  }
  bool operator==(const Endpoint&) const = default;
};

// Parses "127.0.0.1:53", "[::1]:53" or "[::]:0". Host names are not resolved:
// a DNS server must not depend on DNS to start.
bool ParseEndpoint(std::string_view text, Endpoint* out, std::string* error);

// A level-triggered wake-up for poll/epoll loops: Signal() makes the fd
// readable for good, so every loop watching it sees the stop.
class StopSignal {
 public:
  StopSignal();
  int fd() const { return fd_.get(); }
  void Signal();

 private:
  Fd fd_;
};

// A non-blocking, close-on-exec socket of `type` (SOCK_DGRAM/SOCK_STREAM)
// bound to `at` with SO_REUSEPORT (so every worker can own one), and
// IPV6_V6ONLY on IPv6 (v4 and v6 listeners are configured separately).
// Returns an invalid Fd and sets `error` on failure.
Fd BindSocket(const Endpoint& at, int type, std::string* error);

// The address a socket is actually bound to (the kernel's port for port 0).
Endpoint LocalEndpoint(int fd);

// Datagrams the kernel dropped for a socket since it was made (its receive
// queue was full), from SO_MEMINFO; 0 when the kernel does not say. Read when
// asked, unlike SO_RXQ_OVFL's control message on every datagram, which cost
// ~2 % of a core at peak in the peer profile.
uint64_t SocketDrops(int fd);

std::string ErrnoText(int err);

}  // namespace ax::runtime
