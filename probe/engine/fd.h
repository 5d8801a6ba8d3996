// Owning wrappers for the plain file descriptors the probe engine uses
// (sockets, the epoll set, the wake-up eventfd) and the one socket-address
// conversion it needs. No protocol logic and no OpenSSL here (see tls.h).
#pragma once

#include <sys/socket.h>

#include <cstdint>
#include <string>
#include <utility>

#include "ax/ip.h"

namespace ax::probe {

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

// `ip`:`port` as a sockaddr for connect(); `len` receives its size.
sockaddr_storage ToSockaddr(const IpAddress& ip, uint16_t port, socklen_t* len);

// strerror as a std::string, thread-safe.
std::string ErrnoText(int err);

}  // namespace ax::probe
