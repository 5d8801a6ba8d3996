// Socket helpers: endpoint parsing/formatting, RAII fds, eventfd stop signal
// and listener creation with the options ax-dns relies on.
#include "ax/runtime/net.h"

#include <arpa/inet.h>
#include <linux/sock_diag.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>

namespace ax::runtime {

Fd& Fd::operator=(Fd&& other) noexcept {
  if (this != &other) Reset(std::exchange(other.fd_, -1));
  return *this;
}

void Fd::Reset(int fd) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd;
}

std::string Endpoint::ToString() const {
  const std::string host = FormatIp(ip);
  const std::string port_text = std::to_string(port);
  return ip.family == IpFamily::kV6 ? "[" + host + "]:" + port_text
                                    : host + ":" + port_text;
}

sockaddr_storage Endpoint::ToSockaddr(socklen_t* len) const {
  sockaddr_storage sa{};
  if (ip.family == IpFamily::kV4) {
    auto* in = reinterpret_cast<sockaddr_in*>(&sa);
    in->sin_family = AF_INET;
    in->sin_port = htons(port);
    std::memcpy(&in->sin_addr, ip.bytes.data(), 4);
    *len = sizeof(sockaddr_in);
  } else {
    auto* in6 = reinterpret_cast<sockaddr_in6*>(&sa);
    in6->sin6_family = AF_INET6;
    in6->sin6_port = htons(port);
    std::memcpy(&in6->sin6_addr, ip.bytes.data(), 16);
    *len = sizeof(sockaddr_in6);
  }
  return sa;
}

bool ParseEndpoint(std::string_view text, Endpoint* out, std::string* error) {
  std::string_view host;
  std::string_view port;
  if (!text.empty() && text.front() == '[') {
    const size_t close = text.find(']');
    if (close == std::string_view::npos || close + 1 >= text.size() ||
        text[close + 1] != ':') {
      *error = "expected [IPV6]:PORT, got \"" + std::string(text) + "\"";
      return false;
    }
    host = text.substr(1, close - 1);
    port = text.substr(close + 2);
  } else {
    const size_t colon = text.rfind(':');
    if (colon == std::string_view::npos ||
        text.find(':') != colon) {  // a bare IPv6 address needs brackets
      *error = "expected ADDR:PORT or [IPV6]:PORT, got \"" + std::string(text) +
               "\"";
      return false;
    }
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
  }
  const std::optional<IpAddress> ip = ParseIp(host);
  if (!ip) {
    *error = "not an IP address: \"" + std::string(host) + "\"";
    return false;
  }
  unsigned value = 0;
  const auto [end, ec] =
      std::from_chars(port.data(), port.data() + port.size(), value);
  if (ec != std::errc() || end != port.data() + port.size() || port.empty() ||
      value > 65535) {
    *error = "bad port \"" + std::string(port) + "\" in \"" +
             std::string(text) + "\"";
    return false;
  }
  out->ip = *ip;
  out->port = static_cast<uint16_t>(value);
  return true;
}

StopSignal::StopSignal() : fd_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {}

void StopSignal::Signal() {
  const uint64_t one = 1;
  // Never read back: the counter stays non-zero, the fd stays readable.
  [[maybe_unused]] const ssize_t n = ::write(fd_.get(), &one, sizeof(one));
}

Fd BindSocket(const Endpoint& at, int type, std::string* error) {
  const int family = at.ip.family == IpFamily::kV4 ? AF_INET : AF_INET6;
  Fd fd(::socket(family, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd.valid()) {
    *error = "socket: " + ErrnoText(errno);
    return Fd();
  }
  const int one = 1;
  ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) !=
      0) {
    *error = "SO_REUSEPORT: " + ErrnoText(errno);
    return Fd();
  }
  if (family == AF_INET6 && ::setsockopt(fd.get(), IPPROTO_IPV6, IPV6_V6ONLY,
                                         &one, sizeof(one)) != 0) {
    *error = "IPV6_V6ONLY: " + ErrnoText(errno);
    return Fd();
  }
  socklen_t len = 0;
  const sockaddr_storage sa = at.ToSockaddr(&len);
  if (::bind(fd.get(), reinterpret_cast<const sockaddr*>(&sa), len) != 0) {
    *error = "bind " + at.ToString() + ": " + ErrnoText(errno);
    return Fd();
  }
  return fd;
}

Endpoint LocalEndpoint(int fd) {
  sockaddr_storage sa{};
  socklen_t len = sizeof(sa);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&sa), &len);
  return Endpoint::FromSockaddr(sa);
}

uint64_t SocketDrops(int fd) {
  uint32_t info[SK_MEMINFO_VARS] = {};
  socklen_t len = sizeof(info);
  if (::getsockopt(fd, SOL_SOCKET, SO_MEMINFO, info, &len) != 0 ||
      len < sizeof(uint32_t) * (SK_MEMINFO_DROPS + 1)) {
    return 0;
  }
  return info[SK_MEMINFO_DROPS];
}

std::string ErrnoText(int err) {
  char buf[128];
  // GNU strerror_r returns the message pointer (maybe not `buf`).
  return ::strerror_r(err, buf, sizeof(buf));
}

}  // namespace ax::runtime
