// The UDP edge: per listen address, one thread per worker, each with its own
// SO_REUSEPORT socket (the kernel spreads flows across them), blocking in
// recvmmsg for a batch and answering it with sendmmsg: two system calls per
// batch, no poll. Every thread owns its Responder (and so its RNG) and its
// QueryObserver (counters), and takes one reference to the serving state per
// batch.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "ax/runtime/net.h"
#include "server/query_context.h"

namespace ax::dns {

struct UdpOptions {
  std::vector<runtime::Endpoint> listen;
  int workers = 1;  // threads (and sockets) per listen address
  int batch = 64;
  int rcvbuf = 4 << 20;  // bytes requested per socket
  uint64_t seed = 0;     // 0: random; workers derive their own from it
};

struct UdpStats {
  uint64_t received = 0;
  uint64_t sent = 0;
  uint64_t dropped = 0;       // no answer: unparseable, oversized or RRL drop
  uint64_t send_errors = 0;   // answers the kernel did not take
  uint64_t kernel_drops = 0;  // SO_MEMINFO: datagrams lost before we read
};

class UdpServer {
 public:
  UdpServer(UdpOptions options, QueryContext context);
  ~UdpServer();  // stops and joins
  UdpServer(const UdpServer&) = delete;
  UdpServer& operator=(const UdpServer&) = delete;

  // Binds every socket (port 0 resolves to one kernel-chosen port per
  // address, shared by all workers) and starts the workers.
  bool Start(std::string* error);
  // Wakes every worker (shutdown(SHUT_RD) ends a blocked recvmmsg) and joins.
  void Stop();

  // The bound addresses, in --listen order, with real ports.
  const std::vector<runtime::Endpoint>& bound() const { return bound_; }
  // SO_RCVBUF the kernel granted (it may cap the request at rmem_max).
  int rcvbuf_granted() const { return rcvbuf_granted_; }
  UdpStats stats() const;

 private:
  struct Worker;
  void Run(Worker& worker);

  const UdpOptions options_;
  const QueryContext context_;
  std::vector<runtime::Endpoint> bound_;
  int rcvbuf_granted_ = 0;
  std::atomic<bool> stopping_{false};
  std::vector<std::unique_ptr<Worker>> workers_;
};

}  // namespace ax::dns
