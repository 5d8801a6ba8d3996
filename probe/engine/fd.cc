// Owning file descriptors and sockaddr conversion (fd.h).
#include "engine/fd.h"

#include <netinet/in.h>
#include <string.h>
#include <unistd.h>

#include <cstring>

namespace ax::probe {

Fd& Fd::operator=(Fd&& other) noexcept {
  if (this != &other) Reset(std::exchange(other.fd_, -1));
  return *this;
}

void Fd::Reset(int fd) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd;
}

sockaddr_storage ToSockaddr(const IpAddress& ip, uint16_t port,
                            socklen_t* len) {
  sockaddr_storage ss{};
  if (ip.family == IpFamily::kV4) {
    auto* sin = reinterpret_cast<sockaddr_in*>(&ss);
    sin->sin_family = AF_INET;
    sin->sin_port = htons(port);
    std::memcpy(&sin->sin_addr, ip.bytes.data(), 4);
    *len = sizeof(sockaddr_in);
  } else {
    auto* sin6 = reinterpret_cast<sockaddr_in6*>(&ss);
    sin6->sin6_family = AF_INET6;
    sin6->sin6_port = htons(port);
    std::memcpy(&sin6->sin6_addr, ip.bytes.data(), 16);
    *len = sizeof(sockaddr_in6);
  }
  return ss;
}

std::string ErrnoText(int err) {
  char buf[128];
  // The GNU strerror_r returns the message (maybe not in buf).
  return ::strerror_r(err, buf, sizeof(buf));
}

}  // namespace ax::probe
