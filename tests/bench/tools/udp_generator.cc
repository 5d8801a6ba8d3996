// The UDP generator of ax_loadgen. One thread, one non-blocking socket: each
// round sends what the window (and --rate) allows with sendmmsg, then drains
// answers with recvmmsg. The socket is connected, or with --sources unconnected
// and each datagram names its source (IP_PKTINFO), so one socket speaks for
// many resolvers. Answers are matched by ID and question bytes; queries
// unanswered after --timeout are lost and free their slot.
#include "udp_generator.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <deque>
#include <vector>

#include "dns_query.h"

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

  // Runs the load; returns false on a socket error that ends the run.
  bool Run() {
    r_->start_ns = MonotonicNs();
    const uint64_t end_ns = SendingEndsNs(options_, r_->start_ns);
    const uint64_t timeout_ns =
        static_cast<uint64_t>(options_.timeout_ms) * 1'000'000ULL;
    uint64_t next_scan = r_->start_ns + kScanIntervalNs;
    uint64_t now = r_->start_ns;
    while (now < end_ns && QueriesLeft(options_, r_->sent) > 0) {
      if (!SendRound(now)) return false;
      if (!ReceiveRound()) return false;
      now = MonotonicNs();
      if (now >= next_scan) {
        ExpireOlderThan(now, timeout_ns);
        next_scan = now + kScanIntervalNs;
      }
    }
    r_->stop_ns = now;
    // Drain: no more sends; wait for what is outstanding, up to the timeout.
    while (inflight_ > 0 && now < r_->stop_ns + timeout_ns) {
      if (!ReceiveRound()) return false;
      now = MonotonicNs();
    }
    ExpireOlderThan(now + timeout_ns, timeout_ns);  // the rest is lost
    return true;
  }

 private:
  bool SendRound(uint64_t now) {
    size_t want = batch_;
    const size_t room = static_cast<size_t>(options_.inflight) - inflight_;
    want = std::min(want, room);
    want = static_cast<size_t>(
        std::min<uint64_t>(want, QueriesLeft(options_, r_->sent)));
    if (options_.rate > 0) {
      const double due =
          options_.rate * static_cast<double>(now - r_->start_ns) / 1e9;
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
};

}  // namespace

bool RunUdp(const LoadgenOptions& options, const QuerySet& queries,
            const SocketAddress& server, RunResult* result) {
  const int fd =
      ::socket(server.family(), SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0 || (options.sources == 0 &&
                 ::connect(fd, server.get(), server.length) != 0)) {
    std::fprintf(stderr, "ax_loadgen: %s\n",
                 ErrnoMessage("connect " + options.server).c_str());
    if (fd >= 0) ::close(fd);
    return false;
  }
  RaiseSocketBuffers(fd, 4 << 20);
  UdpGenerator generator(options, queries, fd, server, result);
  const bool ok = generator.Run();
  ::close(fd);
  return ok;
}

}  // namespace ax::bench
