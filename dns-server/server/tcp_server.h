// The TCP edge (RFC 7766): 2-byte length framing, pipelined queries answered
// in order as they complete, answers up to 65535 bytes. A few epoll threads,
// each with its own SO_REUSEPORT listener per address. Slowloris-safe: a
// global connection limit (excess connections are closed at once), an idle
// timeout, a per-message timeout once a message has started, and a bound on
// unread output (reading pauses until the client drains it).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "ax/runtime/net.h"
#include "server/query_context.h"

namespace ax::dns {

struct TcpOptions {
  std::vector<runtime::Endpoint>
      listen;  // port 0: a kernel-chosen port per address
  int threads = 1;
  std::chrono::milliseconds idle_timeout{10'000};
  std::chrono::milliseconds message_timeout{5'000};
  int max_connections = 1000;
  uint64_t seed = 0;  // 0: random
};

struct TcpStats {
  uint64_t accepted = 0;
  uint64_t rejected = 0;  // over the connection limit
  uint64_t queries = 0;
  uint64_t closed_idle = 0;
  uint64_t closed_slow = 0;  // a message took longer than message_timeout
  int open = 0;
};

class TcpServer {
 public:
  TcpServer(TcpOptions options, QueryContext context);
  ~TcpServer();  // stops and joins; open connections are closed
  TcpServer(const TcpServer&) = delete;
  TcpServer& operator=(const TcpServer&) = delete;

  bool Start(std::string* error);
  void Stop();

  const std::vector<runtime::Endpoint>& bound() const { return bound_; }
  TcpStats stats() const;

 private:
  class Loop;  // one epoll thread with its listeners and connections

  const TcpOptions options_;
  const QueryContext context_;
  std::vector<runtime::Endpoint> bound_;
  runtime::StopSignal stop_;
  std::atomic<int> open_{0};
  std::vector<std::unique_ptr<Loop>> loops_;
};

}  // namespace ax::dns
