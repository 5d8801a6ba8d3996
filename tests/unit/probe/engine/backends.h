// Real local backends for the probe tests, all on 127.0.0.1 port 0 and torn
// down by their destructors: cpp-httplib servers (plain and TLS) run in a
// thread, a listener that accepts TCP but never answers (the deadlocked
// application), a raw one-shot responder for malformed replies and resets,
// and a port with nothing listening.
#pragma once

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "ax/ip.h"
#include "engine/target.h"
#include "wait_for.h"

namespace ax::probe::testing {

inline IpAddress Loopback() { return *ParseIp("127.0.0.1"); }

inline ProbeTarget MakeTarget(const std::string& node, ProbeProtocol protocol,
                              int port, const std::string& path = "/healthz") {
  ProbeTarget t;
  t.node = node;
  t.address = Loopback();
  t.check.protocol = protocol;
  t.check.port = static_cast<uint16_t>(port);
  t.check.path = path;
  t.check.timeout_ms = 2000;
  return t;
}

// A cpp-httplib server (plain or TLS) serving from its own thread. Register
// handlers on server() before Start().
class HttpBackend {
 public:
  HttpBackend() : server_(std::make_unique<httplib::Server>()) {}
  HttpBackend(const std::string& cert_file, const std::string& key_file)
      : server_(std::make_unique<httplib::SSLServer>(cert_file.c_str(),
                                                     key_file.c_str())),
        tls_(true) {}
  ~HttpBackend() { Stop(); }

  httplib::Server& server() { return *server_; }
  // The TLS server's context, to adjust before Start (null without TLS).
  SSL_CTX* ssl_context() {
    return tls_ ? static_cast<httplib::SSLServer&>(*server_).ssl_context()
                : nullptr;
  }
  bool valid() const { return server_->is_valid(); }

  // Returns the bound port, or -1 if `host` cannot be bound (no IPv6).
  int Start(const std::string& host = "127.0.0.1") {
    port_ = server_->bind_to_any_port(host);
    if (port_ < 0) return port_;
    thread_ = std::thread([this] { server_->listen_after_bind(); });
    if (!::ax::testing::WaitFor([this] { return server_->is_running(); })) {
      ADD_FAILURE() << "the backend on port " << port_ << " did not start";
    }
    return port_;
  }
  void Stop() {
    if (!thread_.joinable()) return;
    server_->stop();
    thread_.join();
  }
  int port() const { return port_; }

 private:
  std::unique_ptr<httplib::Server> server_;
  bool tls_ = false;
  std::thread thread_;
  int port_ = 0;
};

// A bound, listening socket on 127.0.0.1:0 whose connections the kernel
// completes but nobody accepts or answers: TCP up, application dead.
class SilentListener {
 public:
  SilentListener() {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd_, reinterpret_cast<sockaddr*>(&sa), sizeof(sa));
    ::listen(fd_, 64);
    socklen_t len = sizeof(sa);
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&sa), &len);
    port_ = ntohs(sa.sin_port);
  }
  ~SilentListener() { ::close(fd_); }
  int port() const { return port_; }

 private:
  int fd_ = -1;
  int port_ = 0;
};

// A port nothing listens on: bound then closed, so connect is refused.
inline int ClosedPort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof(sa));
  socklen_t len = sizeof(sa);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&sa), &len);
  ::close(fd);
  return ntohs(sa.sin_port);
}

// Accepts one connection, reads what arrives for a moment, then hands the
// socket to `respond` (write garbage, reset, ...) and closes it.
class RawResponder {
 public:
  explicit RawResponder(std::function<void(int fd)> respond) {
    listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(listener_, reinterpret_cast<sockaddr*>(&sa), sizeof(sa));
    ::listen(listener_, 8);
    socklen_t len = sizeof(sa);
    ::getsockname(listener_, reinterpret_cast<sockaddr*>(&sa), &len);
    port_ = ntohs(sa.sin_port);
    thread_ = std::thread([this, respond] {
      const int conn = ::accept(listener_, nullptr, nullptr);
      if (conn < 0) return;
      char buf[4096];
      timeval tv{0, 200000};
      ::setsockopt(conn, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
      (void)::recv(conn, buf, sizeof(buf), 0);
      respond(conn);
      ::close(conn);
    });
  }
  ~RawResponder() {
    ::shutdown(listener_, SHUT_RDWR);  // unblocks accept if nobody came
    thread_.join();
    ::close(listener_);
  }
  int port() const { return port_; }

 private:
  int listener_ = -1;
  int port_ = 0;
  std::thread thread_;
};

}  // namespace ax::probe::testing
