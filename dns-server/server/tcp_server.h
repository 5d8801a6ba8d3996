// The TCP edge (RFC 7766): 2-byte length framing, pipelined queries answered
// in order as they complete, answers up to 65535 bytes. A few epoll threads,
// each with its own SO_REUSEPORT listener per address. Hardened against
// clients that hold resources (RFC 7766 §6.2.3 lets a server close idle
// connections under pressure): a global connection limit where a newcomer
// evicts the idlest connection, a per-source limit, an idle timeout on what
// the client sends, a per-message timeout once a message has started, a
// query budget per connection, and buffered bytes bounded per connection
// (reading pauses until the client drains its answers) and in total (the
// connection holding the most is closed).
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
#include "server/tcp_sources.h"

namespace ax::dns {

struct TcpOptions {
  std::vector<runtime::Endpoint>
      listen;  // port 0: a kernel-chosen port per address
  int threads = 1;
  std::chrono::milliseconds idle_timeout{10'000};
  std::chrono::milliseconds message_timeout{5'000};
  int max_connections = 1000;
  int max_connections_per_source = 100;  // an IPv4 address, an IPv6 /64; 0: off
  uint32_t max_queries_per_connection = 10'000;  // then it is closed; 0: off
  size_t max_buffered_bytes = size_t{32} << 20;  // every connection's, summed
  uint64_t seed = 0;                             // 0: random
};

struct TcpStats {
  uint64_t accepted = 0;
  uint64_t rejected = 0;  // at the connection limit with nothing to evict
  uint64_t rejected_source = 0;  // its source at max_connections_per_source
  uint64_t queries = 0;
  uint64_t closed_idle = 0;
  uint64_t closed_slow = 0;      // a message took longer than message_timeout
  uint64_t closed_evicted = 0;   // the idlest, for a newcomer at the limit
  uint64_t closed_budget = 0;    // read max_queries_per_connection
  uint64_t closed_buffered = 0;  // held the most when the total was over
  int open = 0;
  int64_t buffered_bytes = 0;  // input and unsent output of every connection
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
  std::atomic<int64_t> buffered_{0};
  TcpSources sources_;
  std::vector<std::unique_ptr<Loop>> loops_;
};

}  // namespace ax::dns
