// Socket helpers shared by the benchmark tools.
#ifndef AX_TESTS_BENCH_TOOLS_NET_UTIL_H_
#define AX_TESTS_BENCH_TOOLS_NET_UTIL_H_

#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace ax::bench {

struct SocketAddress {
  sockaddr_storage storage = {};
  socklen_t length = 0;

  int family() const { return storage.ss_family; }
  const sockaddr* get() const {
    return reinterpret_cast<const sockaddr*>(&storage);
  }
};

// A file descriptor closed with its owner.
class OwnedFd {
 public:
  explicit OwnedFd(int fd = -1) : fd_(fd) {}
  OwnedFd(OwnedFd&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  OwnedFd& operator=(OwnedFd&& other) noexcept {
    std::swap(fd_, other.fd_);
    return *this;
  }
  OwnedFd(const OwnedFd&) = delete;
  ~OwnedFd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

// Parses "A.B.C.D:PORT" or "[V6]:PORT".
std::optional<SocketAddress> ParseEndpoint(std::string_view text);
std::string FormatEndpoint(const SocketAddress& address);

// Sets SO_RCVBUF and SO_SNDBUF to `bytes` (the *FORCE variants first, which
// pass rmem_max/wmem_max when allowed). Returns the receive size granted.
int RaiseSocketBuffers(int fd, int bytes);

// CLOCK_MONOTONIC in nanoseconds.
uint64_t MonotonicNs();

// "strerror(errno)" with a prefix, for error messages.
std::string ErrnoMessage(std::string_view what);

}  // namespace ax::bench

#endif  // AX_TESTS_BENCH_TOOLS_NET_UTIL_H_
