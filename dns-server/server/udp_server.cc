// UDP workers: block in recvmmsg (MSG_WAITFORONE: the first datagram, then
// whatever else is queued) -> Prepare a few, Respond to them into per-slot
// buffers, and so on through the batch -> sendmmsg. All
// buffers are allocated once per worker; the loop allocates nothing per query.
#include "server/udp_server.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>

#include "ax/runtime/clock.h"
#include "ax/runtime/log.h"
#include "ax/runtime/random_seed.h"
#include "geo/huge_page_buffer.h"
#include "server/counter.h"
#include "server/telemetry.h"

namespace ax::dns {
namespace {

// Queries larger than this are not DNS queries we answer (MSG_TRUNC: drop).
constexpr size_t kMaxQuery = 4096;
// Our answers never exceed the advertised EDNS size, capped at 4096.
constexpr size_t kMaxAnswer = 4096;
// A batch's buffers are a slot each, one cache line further than a plain
// 4 KiB stride: the starts of 4 KiB-apart buffers (where every datagram and
// answer is) would all fall in one L1 set, which holds 12 lines, and a full
// batch touches 128 of them.
constexpr size_t kSlot = 4096 + 64;
static_assert(kMaxQuery <= kSlot && kMaxAnswer <= kSlot);

// Queries of a batch are parsed this many at a time before any of them is
// answered (Responder::Prepare): their first cache misses overlap. A few
// suffice to hide a miss behind the work of the others; more would push the
// datagrams and the prepared queries (~600 octets each) out of L1.
constexpr size_t kPrepareAhead = 8;

// A worker that received nothing for this long lets go of its references
// (WorkerRefs::Release): a replaced snapshot is not kept alive by idle workers.
constexpr timeval kIdleRelease = {.tv_sec = 1, .tv_usec = 0};

// Receives block (the worker sleeps in recvmmsg, not in poll) for at most
// kIdleRelease; sends keep MSG_DONTWAIT: a full send buffer drops an answer
// rather than stalling reads.
bool MakeReceivesBlock(int fd, std::string* error) {
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
    *error = "fcntl: " + runtime::ErrnoText(errno);
    return false;
  }
  if (::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &kIdleRelease,
                   sizeof(kIdleRelease)) != 0) {
    *error = "SO_RCVTIMEO: " + runtime::ErrnoText(errno);
    return false;
  }
  return true;
}

// recvmmsg and sendmmsg as plain system calls. glibc's wrappers are
// cancellation points: each call switches the thread to asynchronous
// cancellation and back, two atomic read-modify-writes on the thread's
// cancel state (perf at 100k queries/s: ~0.025 us per query). No worker is
// ever cancelled (Stop wakes them with shutdown), so that buys nothing here.
int ReceiveBatch(int fd, mmsghdr* msgs, size_t count) {
  return static_cast<int>(::syscall(SYS_recvmmsg, fd, msgs,
                                    static_cast<unsigned>(count),
                                    MSG_WAITFORONE, nullptr));
}

int SendBatch(int fd, mmsghdr* msgs, size_t count) {
  return static_cast<int>(::syscall(
      SYS_sendmmsg, fd, msgs, static_cast<unsigned>(count), MSG_DONTWAIT));
}

// The largest DNS payload that fits the IPv6 minimum link MTU (1280) after
// the IPv6 and UDP headers (40 + 8): the DNS Flag Day 2020 size.
constexpr int kUnfragmentedPayload = 1232;

}  // namespace

FragmentPolicy FragmentPolicyFor(int max_payload) {
  return max_payload <= kUnfragmentedPayload ? FragmentPolicy::kDontFragment
                                             : FragmentPolicy::kInterfaceMtu;
}

// With DF set an IPv4 datagram is atomic and its ID is never used (RFC 6864
// §4.1), so Linux writes 0 instead of hashing the destination for a fresh
// one: ~0.1 us less per answer on this path's profile.
bool ApplyFragmentPolicy(int fd, int family, FragmentPolicy policy,
                         std::string* error) {
  const bool dont = policy == FragmentPolicy::kDontFragment;
  const bool v4 = family == AF_INET;
  const int level = v4 ? IPPROTO_IP : IPPROTO_IPV6;
  const int option = v4 ? IP_MTU_DISCOVER : IPV6_MTU_DISCOVER;
  const int mode = v4 ? (dont ? IP_PMTUDISC_PROBE : IP_PMTUDISC_OMIT)
                      : (dont ? IPV6_PMTUDISC_PROBE : IPV6_PMTUDISC_OMIT);
  if (::setsockopt(fd, level, option, &mode, sizeof(mode)) != 0) {
    *error = std::string(v4 ? "IP_MTU_DISCOVER: " : "IPV6_MTU_DISCOVER: ") +
             runtime::ErrnoText(errno);
    return false;
  }
  return true;
}

struct UdpServer::Worker {
  Worker(const UdpOptions& options, const QueryContext& context, uint64_t seed)
      : responder(context.responder, seed, context.rrl),
        observer(context.telemetry->AddWorker()),
        refs(context),
        batch(static_cast<size_t>(options.batch)),
        buffers(2 * batch * kSlot),
        names(batch),
        in_iov(batch),
        out_iov(batch),
        in_msgs(batch),
        out_msgs(batch),
        sources(kPrepareAhead),
        prepared(kPrepareAhead) {
    for (size_t i = 0; i < batch; ++i) {
      in_iov[i] = {In(i), kMaxQuery};
      msghdr& h = in_msgs[i].msg_hdr;
      h = {};
      h.msg_name = &names[i];
      h.msg_iov = &in_iov[i];
      h.msg_iovlen = 1;
    }
    Rearm(batch);
  }

  // recvmmsg changes only msg_namelen (and the output-only msg_flags and
  // msg_len) of the headers it fills: restoring that of the first `used` is
  // all a new call needs. At moderate rates a call fills one or two of 64,
  // and rewriting all 64 headers cost 0.1 us per query.
  void Rearm(size_t used) {
    for (size_t i = 0; i < used; ++i) {
      in_msgs[i].msg_hdr.msg_namelen = sizeof(sockaddr_storage);
    }
  }

  // Slot i of the datagrams received / of the answers to send.
  uint8_t* In(size_t i) const {
    return static_cast<uint8_t*>(buffers.data()) + i * kSlot;
  }
  uint8_t* Out(size_t i) const { return In(batch + i); }

  runtime::Fd socket;
  Responder responder;
  QueryObserver* observer;
  WorkerRefs refs;
  size_t batch;
  // Every slot in one mapping on huge pages: a full batch writes 128 slots,
  // which in 4 KiB pages would take as many TLB entries.
  HugePageBuffer buffers;
  std::vector<sockaddr_storage> names;
  std::vector<iovec> in_iov;
  std::vector<iovec> out_iov;
  std::vector<mmsghdr> in_msgs;
  std::vector<mmsghdr> out_msgs;
  std::vector<IpAddress> sources;  // of the queries being prepared
  std::vector<PreparedQuery> prepared;
  std::thread thread;
  alignas(64) Counter received, sent, dropped, send_errors;
};

UdpServer::UdpServer(UdpOptions options, QueryContext context)
    : options_(std::move(options)), context_(std::move(context)) {}

UdpServer::~UdpServer() { Stop(); }

bool UdpServer::Start(std::string* error) {
  const uint64_t seed = options_.seed ? options_.seed : runtime::RandomSeed();
  const int per_address = std::max(1, options_.workers);
  const FragmentPolicy fragments = FragmentPolicyFor(options_.max_payload);
  bound_ = options_.listen;
  for (runtime::Endpoint& at : bound_) {
    for (int w = 0; w < per_address; ++w) {
      // Distinct, well-spread seeds per worker from one base.
      auto worker = std::make_unique<Worker>(
          options_, context_,
          seed + 0x9E3779B97F4A7C15ULL * (workers_.size() + 1));
      runtime::Fd fd = runtime::BindSocket(at, SOCK_DGRAM, error);
      if (!fd.valid() || !MakeReceivesBlock(fd.get(), error) ||
          !ApplyFragmentPolicy(
              fd.get(), at.ip.family == IpFamily::kV4 ? AF_INET : AF_INET6,
              fragments, error)) {
        return false;
      }
      // The first bind resolves port 0; the other workers join that port.
      if (at.port == 0) at = runtime::LocalEndpoint(fd.get());
      // SO_RCVBUFFORCE passes rmem_max when we may; else the capped request.
      if (::setsockopt(fd.get(), SOL_SOCKET, SO_RCVBUFFORCE, &options_.rcvbuf,
                       sizeof(int)) != 0) {
        ::setsockopt(fd.get(), SOL_SOCKET, SO_RCVBUF, &options_.rcvbuf,
                     sizeof(int));
      }
      socklen_t len = sizeof(rcvbuf_granted_);
      ::getsockopt(fd.get(), SOL_SOCKET, SO_RCVBUF, &rcvbuf_granted_, &len);
      worker->socket = std::move(fd);
      workers_.push_back(std::move(worker));
    }
  }
  // The kernel reports double the usable size it reserved (bookkeeping).
  if (rcvbuf_granted_ / 2 < options_.rcvbuf) {
    runtime::Log(
        runtime::LogLevel::kWarn,
        "kernel capped SO_RCVBUF; bursts may drop (raise net.core.rmem_max)",
        {{"requested", options_.rcvbuf}, {"granted", rcvbuf_granted_ / 2}});
  }
  for (auto& worker : workers_) {
    worker->thread = std::thread([this, w = worker.get()] { Run(*w); });
  }
  std::vector<std::string> addresses;
  for (const runtime::Endpoint& e : bound_) addresses.push_back(e.ToString());
  runtime::Log(runtime::LogLevel::kInfo, "udp listening",
               {{"addresses", addresses},
                {"workers", per_address},
                {"rcvbuf", rcvbuf_granted_ / 2},
                {"dont_fragment", fragments == FragmentPolicy::kDontFragment}});
  return true;
}

void UdpServer::Stop() {
  stopping_.store(true, std::memory_order_release);
  // On Linux, SHUT_RD on a UDP socket wakes its blocked readers, which then
  // see the flag (inet_shutdown: ENOTCONN for an unconnected socket, ignored).
  for (auto& worker : workers_) ::shutdown(worker->socket.get(), SHUT_RD);
  for (auto& worker : workers_) {
    if (worker->thread.joinable()) worker->thread.join();
  }
}

UdpStats UdpServer::stats() const {
  UdpStats s;
  for (const auto& w : workers_) {
    s.received += w->received.Get();
    s.sent += w->sent.Get();
    s.dropped += w->dropped.Get();
    s.send_errors += w->send_errors.Get();
    s.kernel_drops += runtime::SocketDrops(w->socket.get());
  }
  return s;
}

void UdpServer::Run(Worker& w) {
  const int fd = w.socket.get();
  while (true) {
    const int got = ReceiveBatch(fd, w.in_msgs.data(), w.batch);
    if (stopping_.load(std::memory_order_acquire)) return;
    if (got <= 0) {
      if (got < 0 && errno != EINTR && errno != EAGAIN) {
        runtime::Log(runtime::LogLevel::kError, "udp recvmmsg failed",
                     {{"error", runtime::ErrnoText(errno)}});
        return;
      }
      if (got < 0 && errno == EAGAIN) w.refs.Release();  // idle (kIdleRelease)
      continue;
    }
    w.received.Add(static_cast<uint64_t>(got));

    const QueryRefs& refs = w.refs.Get();
    QueryMeta meta;
    meta.transport = Transport::kUdp;
    meta.now_ms = runtime::CoarseWallMs();
    meta.mono_us = static_cast<uint64_t>(runtime::CoarseMonoUs());
    size_t answers = 0;
    for (size_t first = 0; first < static_cast<size_t>(got);
         first += kPrepareAhead) {
      const size_t end =
          std::min(static_cast<size_t>(got), first + kPrepareAhead);
      // The sources first: each is assembled from its sockaddr in pieces,
      // and reading one back whole right away stalls (store-to-load
      // forwarding fails on a read wider than the writes).
      for (size_t i = first; i < end; ++i) {
        w.sources[i - first] = runtime::Endpoint::FromSockaddr(w.names[i]).ip;
      }
      for (size_t i = first; i < end; ++i) {
        if (w.in_msgs[i].msg_hdr.msg_flags & MSG_TRUNC) continue;
        meta.source = w.sources[i - first];
        w.responder.Prepare(refs.geo_refs(), meta,
                            {w.In(i), w.in_msgs[i].msg_len},
                            &w.prepared[i - first]);
      }
      for (size_t i = first; i < end; ++i) {
        if (w.in_msgs[i].msg_hdr.msg_flags & MSG_TRUNC) continue;
        Responder::PrefetchMore(refs.geo_refs(), w.prepared[i - first]);
      }
      for (size_t i = first; i < end; ++i) {
        const msghdr& h = w.in_msgs[i].msg_hdr;
        if (h.msg_flags & MSG_TRUNC) {
          w.dropped.Add(1);
          continue;
        }
        meta.source = w.sources[i - first];
        uint8_t* out = w.Out(answers);
        const size_t size = w.observer->Respond(
            w.responder, refs, meta, w.prepared[i - first], {out, kMaxAnswer});
        if (size == 0) {
          w.dropped.Add(1);
          continue;
        }
        w.out_iov[answers] = {out, size};
        msghdr& o = w.out_msgs[answers].msg_hdr;
        o = {};
        o.msg_name = &w.names[i];
        o.msg_namelen = h.msg_namelen;
        o.msg_iov = &w.out_iov[answers];
        o.msg_iovlen = 1;
        answers++;
      }
    }
    for (size_t done = 0; done < answers;) {
      const int n = SendBatch(fd, &w.out_msgs[done], answers - done);
      if (n > 0) {
        w.sent.Add(static_cast<uint64_t>(n));
        done += static_cast<size_t>(n);
      } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
        // Send buffer full: UDP may drop; better than stalling reads.
        w.send_errors.Add(answers - done);
        break;
      } else if (errno != EINTR) {
        w.send_errors.Add(1);  // this datagram failed; try the rest
        done++;
      }
    }
    w.Rearm(static_cast<size_t>(got));
  }
}

}  // namespace ax::dns
