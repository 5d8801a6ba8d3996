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
  // The largest DNS payload an answer may have (--edns-udp-size): it decides
  // whether answers leave unfragmentable (FragmentPolicyFor).
  int max_payload = 1232;
};

// How a UDP socket's answers meet the path MTU (IP_MTU_DISCOVER and
// IPV6_MTU_DISCOVER). Both modes ignore path MTU information, so a forged
// ICMP "fragmentation needed" / "packet too big" cannot make the kernel split
// answers (the opening of fragment-based cache poisoning).
enum class FragmentPolicy {
  // *_PMTUDISC_PROBE: never fragmented; IPv4 with DF set (RFC 9715 §3.1).
  kDontFragment,
  // *_PMTUDISC_OMIT: fragmented at the interface's MTU only, DF clear.
  kInterfaceMtu,
};

// kDontFragment while every answer fits the smallest MTU a path may have:
// a payload up to 1232 octets is at most 1280 with IPv6 and UDP headers, the
// IPv6 minimum link MTU (RFC 8200 §5), and less with IPv4's. A larger
// payload could exceed some path's MTU, where DF would drop it silently
// (a resolver only learns of it by timing out), so those fragment instead.
FragmentPolicy FragmentPolicyFor(int max_payload);

// Applies `policy` to a UDP socket of `family` (AF_INET or AF_INET6).
bool ApplyFragmentPolicy(int fd, int family, FragmentPolicy policy,
                         std::string* error);

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
