// The UDP generator of ax_loadgen. One thread, one non-blocking socket per
// server (several servers are sent to in turns): each round sends what the
// window (and --rate) allows with sendmmsg, then drains answers with recvmmsg.
// The socket is connected, or with --sources unconnected and each datagram
// names its source (IP_PKTINFO), so one socket speaks for many resolvers.
// Answers are matched by ID and question bytes; queries unanswered after
// --timeout are lost and free their slot.
#include "udp_generator.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <time.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "dns_query.h"
#include "process_cpu.h"

namespace ax::bench {
namespace {

constexpr size_t kMaxAnswer = 4096;
constexpr size_t kIds = 65536;
constexpr uint64_t kScanIntervalNs = 10'000'000;  // timeout scan every 10 ms
constexpr size_t kControlSize = CMSG_SPACE(sizeof(in_pktinfo));

struct Slot {
  uint64_t sent_ns = 0;  // 0: free
  uint32_t query = 0;    // index into QuerySet::queries
};

class UdpGenerator {
 public:
  UdpGenerator(const LoadgenOptions& options, const QuerySet& queries, int fd,
               const SocketAddress& server, RunResult* result)
      : options_(options),
        queries_(queries),
        r_(result),
        fd_(fd),
        server_(server),
        batch_(static_cast<size_t>(options.batch)),
        timeout_ns_(TimeoutNs(options)),
        slots_(kIds),
        out_bufs_(batch_ * 512),
        in_bufs_(batch_ * kMaxAnswer),
        out_iov_(batch_),
        in_iov_(batch_),
        out_msgs_(batch_),
        in_msgs_(batch_),
        control_(batch_ * kControlSize),
        batch_ids_(batch_) {
    for (size_t id = 0; id < kIds; ++id) {
      free_ids_.push_back(static_cast<uint16_t>(id));
    }
    for (size_t i = 0; i < batch_; ++i) {
      in_iov_[i] = {&in_bufs_[i * kMaxAnswer], kMaxAnswer};
    }
  }

  // One turn: sends for sending_ns (or until the count is sent), then waits
  // up to drain_ns for the answers outstanding. Returns false on a socket
  // error that ends the run.
  bool Turn(uint64_t sending_ns, uint64_t drain_ns) {
    turn_start_ns_ = MonotonicNs();
    const uint64_t end_ns = SendingEndNs(turn_start_ns_, sending_ns);
    uint64_t next_scan = turn_start_ns_ + kScanIntervalNs;
    uint64_t now = turn_start_ns_;
    while (now < end_ns && QueriesLeft(options_, r_->sent) > 0) {
      if (!SendRound(now)) return false;
      if (!ReceiveRound()) return false;
      now = MonotonicNs();
      if (now >= next_scan) {
        ExpireOlderThan(now, timeout_ns_);
        next_scan = now + kScanIntervalNs;
      }
    }
    r_->sending_ns += now - turn_start_ns_;
    const uint64_t stop_ns = now;
    while (inflight_ > 0 && now < stop_ns + drain_ns) {
      if (!ReceiveRound()) return false;
      now = MonotonicNs();
    }
    return true;
  }

  // Counts what is still outstanding as lost.
  void Finish() { ExpireOlderThan(MonotonicNs() + timeout_ns_, timeout_ns_); }

 private:
  bool SendRound(uint64_t now) {
    size_t want = batch_;
    const size_t room = static_cast<size_t>(options_.inflight) - inflight_;
    want = std::min(want, room);
    want = static_cast<size_t>(
        std::min<uint64_t>(want, QueriesLeft(options_, r_->sent)));
    if (options_.rate > 0) {
      // Due by this server's own sending time (its turns' sum).
      const double due =
          options_.rate *
          static_cast<double>(r_->sending_ns + (now - turn_start_ns_)) / 1e9;
      const double behind = due - static_cast<double>(r_->sent);
      want = behind <= 0 ? 0 : std::min(want, static_cast<size_t>(behind));
    }
    want = std::min(want, free_ids_.size());
    if (want == 0) return true;
    for (size_t i = 0; i < want; ++i) {
      const uint16_t id = free_ids_.front();
      free_ids_.pop_front();
      batch_ids_[i] = id;
      const uint32_t q = next_query_;
      if (++next_query_ == queries_.queries.size()) {
        next_query_ = 0;
        ++passes_;
      }
      const std::vector<uint8_t>& wire = queries_.queries[q].wire;
      uint8_t* buf = &out_bufs_[i * 512];
      std::memcpy(buf, wire.data(), wire.size());
      WriteU16(buf, id);
      slots_[id].query = q;
      out_iov_[i] = {buf, wire.size()};
      msghdr& h = out_msgs_[i].msg_hdr;
      h = {};
      h.msg_iov = &out_iov_[i];
      h.msg_iovlen = 1;
      if (options_.sources > 0) SetSource(&h, &control_[i * kControlSize], q);
    }
    int n = ::sendmmsg(fd_, out_msgs_.data(), static_cast<unsigned>(want),
                       MSG_DONTWAIT);
    if (n < 0) {
      if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR &&
          errno != ECONNREFUSED && errno != ENOBUFS) {
        std::fprintf(stderr, "ax_loadgen: %s\n",
                     ErrnoMessage("sendmmsg").c_str());
        return false;
      }
      ++r_->send_errors;
      n = 0;
    }
    const uint64_t sent_at = MonotonicNs();
    for (size_t i = 0; i < want; ++i) {
      if (i < static_cast<size_t>(n)) {
        slots_[batch_ids_[i]].sent_ns = sent_at;
      } else {
        free_ids_.push_back(batch_ids_[i]);  // not sent: slot back
      }
    }
    r_->sent += static_cast<uint64_t>(n);
    inflight_ += static_cast<size_t>(n);
    return true;
  }

  // Addresses query `q` to the server from one of the --sources addresses,
  // 127.0.i.1: a /24 of its own each, as RRL and geo see resolvers. Shifted by
  // one each pass over the mix, so every source asks every query equally often
  // (a fixed pairing would give each source only some of the subnets and
  // concentrate the load on fewer (source, question) pairs than resolvers do).
  void SetSource(msghdr* h, uint8_t* control, uint32_t q) {
    h->msg_name = const_cast<sockaddr*>(server_.get());
    h->msg_namelen = server_.length;
    h->msg_control = control;
    h->msg_controllen = kControlSize;
    cmsghdr* c = CMSG_FIRSTHDR(h);
    c->cmsg_level = IPPROTO_IP;
    c->cmsg_type = IP_PKTINFO;
    c->cmsg_len = CMSG_LEN(sizeof(in_pktinfo));
    in_pktinfo info = {};
    const uint32_t i =
        1 + static_cast<uint32_t>((q + passes_) %
                                  static_cast<uint64_t>(options_.sources));
    info.ipi_spec_dst.s_addr = htonl(0x7F000001u | i << 8);
    std::memcpy(CMSG_DATA(c), &info, sizeof(info));
  }

  bool ReceiveRound() {
    for (int round = 0; round < 4; ++round) {
      for (size_t i = 0; i < batch_; ++i) {
        msghdr& h = in_msgs_[i].msg_hdr;
        h = {};
        h.msg_iov = &in_iov_[i];
        h.msg_iovlen = 1;
      }
      const int got =
          ::recvmmsg(fd_, in_msgs_.data(), static_cast<unsigned>(batch_),
                     MSG_DONTWAIT, nullptr);
      if (got < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ||
            errno == ECONNREFUSED) {
          return true;
        }
        std::fprintf(stderr, "ax_loadgen: %s\n",
                     ErrnoMessage("recvmmsg").c_str());
        return false;
      }
      const uint64_t now = MonotonicNs();
      for (int i = 0; i < got; ++i) {
        Match(&in_bufs_[i * kMaxAnswer], in_msgs_[i].msg_len, now);
      }
      if (got < static_cast<int>(batch_)) return true;
    }
    return true;
  }

  void Match(const uint8_t* answer, size_t size, uint64_t now) {
    if (size < kDnsHeaderSize) {
      ++r_->unmatched;
      return;
    }
    const uint16_t id = ReadU16(answer);
    const Slot& slot = slots_[id];
    if (slot.sent_ns == 0) {
      ++r_->unmatched;  // late answer to a query already counted lost
      return;
    }
    if (CountAnswer(queries_.queries[slot.query], answer, size,
                    now - slot.sent_ns, r_)) {
      Release(id);
    }
  }

  void ExpireOlderThan(uint64_t now, uint64_t timeout_ns) {
    if (inflight_ == 0) return;
    for (size_t id = 0; id < kIds; ++id) {
      const uint64_t sent = slots_[id].sent_ns;
      if (sent != 0 && sent + timeout_ns <= now) {
        ++r_->timeouts;
        Release(static_cast<uint16_t>(id));
      }
    }
  }

  void Release(uint16_t id) {
    slots_[id].sent_ns = 0;
    free_ids_.push_back(id);
    --inflight_;
  }

  const LoadgenOptions& options_;
  const QuerySet& queries_;
  RunResult* const r_;
  const int fd_;
  const SocketAddress server_;
  const size_t batch_;
  const uint64_t timeout_ns_;
  std::vector<Slot> slots_;
  std::deque<uint16_t> free_ids_;  // FIFO: an ID is reused as late as possible
  std::vector<uint8_t> out_bufs_;
  std::vector<uint8_t> in_bufs_;
  std::vector<iovec> out_iov_;
  std::vector<iovec> in_iov_;
  std::vector<mmsghdr> out_msgs_;
  std::vector<mmsghdr> in_msgs_;
  std::vector<uint8_t> control_;  // IP_PKTINFO per datagram (--sources)
  std::vector<uint16_t> batch_ids_;
  uint32_t next_query_ = 0;
  uint64_t passes_ = 0;  // times the mix has been sent whole
  size_t inflight_ = 0;
  uint64_t turn_start_ns_ = 0;
};

// An interleaved turn waits this long at most for its last answers: a lost
// one would otherwise hold the next server's turn for the whole --timeout.
constexpr uint64_t kTurnDrainNs = 100'000'000;
// With --cpu-pid, the servers' clocks are read this long after the last turn:
// what a server defers past its answers (a log writer's next flush) counts.
constexpr timespec kCpuSettle = {.tv_sec = 0, .tv_nsec = 250'000'000};

// One server of the run: its socket, generator and process clock.
struct Target {
  OwnedFd socket;
  std::unique_ptr<UdpGenerator> generator;
  std::optional<ProcessCpu> cpu;
};

bool OpenTarget(const LoadgenOptions& options, const QuerySet& queries,
                size_t i, const SocketAddress& server, RunResult* result,
                Target* target) {
  OwnedFd fd(
      ::socket(server.family(), SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (fd.get() < 0 || (options.sources == 0 &&
                       ::connect(fd.get(), server.get(), server.length) != 0)) {
    std::fprintf(stderr, "ax_loadgen: %s\n",
                 ErrnoMessage("connect " + options.servers[i]).c_str());
    return false;
  }
  RaiseSocketBuffers(fd.get(), 4 << 20);
  if (!options.cpu_pids.empty()) {
    target->cpu.emplace(options.cpu_pids[i]);
    if (!target->cpu->ok()) {
      std::fprintf(stderr, "ax_loadgen: no process %d (--cpu-pid)\n",
                   options.cpu_pids[i]);
      return false;
    }
  }
  target->generator = std::make_unique<UdpGenerator>(options, queries, fd.get(),
                                                     server, result);
  target->socket = std::move(fd);
  return true;
}

// Every target's CPU time so far (0 without --cpu-pid); false, with a
// message, when a server's process has gone.
bool ReadCpu(const LoadgenOptions& options, const std::vector<Target>& targets,
             std::vector<int64_t>* ns) {
  ns->assign(targets.size(), 0);
  for (size_t i = 0; i < targets.size(); ++i) {
    if (!targets[i].cpu) continue;
    (*ns)[i] = targets[i].cpu->Ns();
    if ((*ns)[i] < 0) {
      std::fprintf(stderr, "ax_loadgen: process %d (--cpu-pid) has gone\n",
                   options.cpu_pids[i]);
      return false;
    }
  }
  return true;
}

}  // namespace

bool RunUdp(const LoadgenOptions& options, const QuerySet& queries,
            const std::vector<SocketAddress>& servers,
            std::vector<RunResult>* results) {
  const size_t n = servers.size();
  results->assign(n, RunResult{});
  std::vector<Target> targets(n);
  for (size_t i = 0; i < n; ++i) {
    if (!OpenTarget(options, queries, i, servers[i], &(*results)[i],
                    &targets[i])) {
      return false;
    }
  }
  const uint64_t sending_ns = SendingNs(options);
  const uint64_t timeout_ns = TimeoutNs(options);
  const bool interleaved = n > 1;
  const uint64_t turn_ns =
      interleaved ? static_cast<uint64_t>(options.slice_ms) * 1'000'000ULL
                  : sending_ns;
  const uint64_t drain_ns =
      interleaved ? std::min(timeout_ns, kTurnDrainNs) : timeout_ns;
  // Interleaved, each server first has one turn that is not counted: the
  // first turn of a run is the generator's cold start (its caches, its
  // tables' first use), and would slow whichever server comes first.
  if (interleaved) {
    for (size_t i = 0; i < n; ++i) {
      if (!targets[i].generator->Turn(turn_ns, drain_ns)) return false;
      targets[i].generator->Finish();  // nothing outstanding carries over
      (*results)[i] = RunResult{};
    }
  }
  std::vector<int64_t> cpu_start;
  if (!ReadCpu(options, targets, &cpu_start)) return false;
  // Round-robin turns, until every server has had its sending time (all
  // end together: each turn is the same length, the last one shortened).
  for (bool more = true; more;) {
    more = false;
    for (size_t i = 0; i < n; ++i) {
      RunResult& r = (*results)[i];
      if (r.sending_ns >= sending_ns || QueriesLeft(options, r.sent) == 0) {
        continue;
      }
      if (!targets[i].generator->Turn(
              std::min(turn_ns, sending_ns - r.sending_ns), drain_ns)) {
        return false;
      }
      if (interleaved) ++r.turns;
      more = true;
    }
  }
  for (Target& t : targets) t.generator->Finish();
  // A server's CPU over the whole run, its idle time in the others' turns
  // included: whatever it spends, and when, is its cost.
  if (options.cpu_pids.empty()) return true;
  ::nanosleep(&kCpuSettle, nullptr);
  std::vector<int64_t> cpu_end;
  if (!ReadCpu(options, targets, &cpu_end)) return false;
  for (size_t i = 0; i < n; ++i) {
    (*results)[i].cpu_ns = cpu_end[i] - cpu_start[i];
  }
  return true;
}

}  // namespace ax::bench
