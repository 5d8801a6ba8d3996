// The TCP generator of ax_loadgen. One thread, epoll over non-blocking
// connections. Each connection keeps up to --pipeline queries outstanding, each
// framed by its two-octet length (RFC 1035 section 4.2.2) and written as soon
// as answers free room: the pipelining of RFC 7766 section 6.2.1.1, which lets
// the server answer out of order, so answers are matched by ID (each connection
// has its own ID space) and question bytes. A query unanswered after --timeout
// is lost and frees its room; a connection the server closes or resets is
// reopened (counted in "reconnects") and what was outstanding on it is
// "dropped".
#include "tcp_generator.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
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

constexpr size_t kConnectionIds =
    4096;  // > --pipeline: an ID rests before reuse
constexpr uint64_t kScanIntervalNs = 10'000'000;  // timeout scan every 10 ms
constexpr uint64_t kRetryNs = 10'000'000;         // after a failed connect
constexpr size_t kReadChunk = 65536;
constexpr int kEpollWaitMs = 1;  // --rate and retries need a regular turn
constexpr uint64_t kTickNs = 1'000'000;  // --rate: queries go out each 1 ms

struct Slot {
  uint64_t sent_ns = 0;  // 0: free
  uint32_t query = 0;    // index into QuerySet::queries
};

struct Connection {
  int fd = -1;
  bool connected = false;
  bool watching_writes = false;  // EPOLLOUT registered: output waits
  uint64_t retry_ns = 0;         // when closed: reopen from then on
  std::vector<uint8_t> out;      // framed queries not yet written
  size_t written = 0;            // of `out`
  std::vector<uint8_t> in;       // bytes of answers not yet complete
  std::vector<Slot> slots = std::vector<Slot>(kConnectionIds);
  std::deque<uint16_t> free_ids;
  std::deque<uint16_t> order;  // IDs in send order, for the timeout scan
  size_t outstanding = 0;
};

class TcpGenerator {
 public:
  TcpGenerator(const LoadgenOptions& options, const QuerySet& queries,
               const SocketAddress& server, RunResult* result)
      : options_(options),
        queries_(queries),
        server_(server),
        r_(result),
        connections_(static_cast<size_t>(options.connections)),
        events_(connections_.size()),
        read_buf_(kReadChunk) {}

  ~TcpGenerator() {
    for (Connection& c : connections_) Close(&c);
    if (epoll_ >= 0) ::close(epoll_);
  }

  bool Run() {
    epoll_ = ::epoll_create1(EPOLL_CLOEXEC);
    if (epoll_ < 0) {
      std::fprintf(stderr, "ax_loadgen: %s\n",
                   ErrnoMessage("epoll_create1").c_str());
      return false;
    }
    for (size_t i = 0; i < connections_.size(); ++i) {
      Connection& c = connections_[i];
      for (size_t id = 0; id < kConnectionIds; ++id) {
        c.free_ids.push_back(static_cast<uint16_t>(id));
      }
      if (!Open(i)) return false;
    }
    r_->reconnects = 0;  // the first opens are not reconnects
    start_ns_ = MonotonicNs();
    const uint64_t end_ns = SendingEndNs(start_ns_, SendingNs(options_));
    const uint64_t timeout_ns = TimeoutNs(options_);
    uint64_t next_scan = start_ns_ + kScanIntervalNs;
    uint64_t now = start_ns_;
    while (now < end_ns && QueriesLeft(options_, r_->sent) > 0) {
      Poll(now);
      now = MonotonicNs();
      Fill(now);
      if (now >= next_scan) {
        Expire(now, timeout_ns);
        next_scan = now + kScanIntervalNs;
      }
    }
    r_->sending_ns = now - start_ns_;
    const uint64_t stop_ns = now;
    // Drain: no more sends; wait for what is outstanding, up to the timeout.
    while (Outstanding() > 0 && now < stop_ns + timeout_ns) {
      Poll(now);
      now = MonotonicNs();
    }
    Expire(now + timeout_ns, timeout_ns);  // the rest is lost
    return true;
  }

 private:
  // Connects connection `i` (non-blocking; EPOLLOUT tells when it is up), from
  // its --sources address. Returns false only when the socket cannot be made.
  bool Open(size_t i) {
    Connection& c = connections_[i];
    c.fd = ::socket(server_.family(),
                    SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (c.fd < 0) {
      std::fprintf(stderr, "ax_loadgen: %s\n", ErrnoMessage("socket").c_str());
      return false;
    }
    const int one = 1;
    ::setsockopt(c.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    if (options_.sources > 0) {
      sockaddr_in source = {};
      source.sin_family = AF_INET;
      const auto n = static_cast<uint32_t>(i % options_.sources) + 1;
      source.sin_addr.s_addr = htonl(0x7F000001u | n << 8);
      if (::bind(c.fd, reinterpret_cast<const sockaddr*>(&source),
                 sizeof(source)) != 0) {
        std::fprintf(stderr, "ax_loadgen: %s\n",
                     ErrnoMessage("bind source").c_str());
        return false;
      }
    }
    if (::connect(c.fd, server_.get(), server_.length) != 0 &&
        errno != EINPROGRESS) {
      Fail(&c, MonotonicNs());
      return true;
    }
    epoll_event event = {};
    event.events = EPOLLIN | EPOLLOUT;
    event.data.u64 = i;
    ::epoll_ctl(epoll_, EPOLL_CTL_ADD, c.fd, &event);
    c.watching_writes = true;
    ++r_->reconnects;
    return true;
  }

  void Poll(uint64_t now) {
    const int n = ::epoll_wait(epoll_, events_.data(),
                               static_cast<int>(events_.size()), kEpollWaitMs);
    for (int e = 0; e < n; ++e) {
      Connection& c = connections_[events_[e].data.u64];
      if (c.fd < 0) continue;
      if (!c.connected) {
        int error = 0;
        socklen_t length = sizeof(error);
        ::getsockopt(c.fd, SOL_SOCKET, SO_ERROR, &error, &length);
        if (error != 0) {
          Fail(&c, now);
          continue;
        }
        c.connected = true;
      }
      if ((events_[e].events & (EPOLLIN | EPOLLERR | EPOLLHUP)) != 0 &&
          !Read(&c)) {
        Fail(&c, now);
        continue;
      }
      if (!Flush(&c, events_[e].data.u64)) Fail(&c, now);
    }
    // Closed connections come back after a pause.
    for (size_t i = 0; i < connections_.size(); ++i) {
      Connection& c = connections_[i];
      if (c.fd < 0 && now >= c.retry_ns && !Open(i))
        c.retry_ns = now + kRetryNs;
    }
  }

  // Reads what arrived and counts each complete answer. False when the server
  // closed the connection or it failed.
  bool Read(Connection* c) {
    while (true) {
      const ssize_t got = ::read(c->fd, read_buf_.data(), read_buf_.size());
      if (got == 0) return false;
      if (got < 0) {
        return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
      }
      c->in.insert(c->in.end(), read_buf_.begin(), read_buf_.begin() + got);
      const uint64_t now = MonotonicNs();
      size_t at = 0;
      while (c->in.size() - at >= 2) {
        const size_t length = ReadU16(&c->in[at]);
        if (c->in.size() - at - 2 < length) break;
        Match(c, &c->in[at + 2], length, now);
        at += 2 + length;
      }
      c->in.erase(c->in.begin(), c->in.begin() + static_cast<long>(at));
      if (static_cast<size_t>(got) < read_buf_.size()) return true;
    }
  }

  void Match(Connection* c, const uint8_t* answer, size_t size, uint64_t now) {
    if (size < kDnsHeaderSize) {
      ++r_->unmatched;
      return;
    }
    const uint16_t id = ReadU16(answer);
    if (id >= kConnectionIds || c->slots[id].sent_ns == 0) {
      ++r_->unmatched;  // late answer to a query already counted lost
      return;
    }
    const Slot& slot = c->slots[id];
    if (CountAnswer(queries_.queries[slot.query], answer, size,
                    now - slot.sent_ns, r_)) {
      Release(c, id);
    }
  }

  // Closed loop: fills every open connection's room and writes. At --rate:
  // once per tick, the queries due so far are dealt one at a time to the
  // connections in turn, as many resolvers each asking now and then would send
  // them, so what a server receives does not depend on how fast it answers.
  void Fill(uint64_t now) {
    if (options_.rate <= 0) {
      for (size_t i = 0; i < connections_.size(); ++i) {
        Connection& c = connections_[i];
        if (!c.connected) continue;
        const size_t room = static_cast<size_t>(std::min<uint64_t>(
            static_cast<uint64_t>(options_.pipeline) - c.outstanding,
            QueriesLeft(options_, r_->sent)));
        for (size_t q = 0; q < room; ++q) Queue(&c, now);
        if (room > 0 && !Flush(&c, i)) Fail(&c, now);
      }
      return;
    }
    if (now < next_tick_ns_) return;
    next_tick_ns_ = now + kTickNs;
    const double due =
        options_.rate * static_cast<double>(now - start_ns_) / 1e9;
    const double behind = due - static_cast<double>(r_->sent);
    uint64_t budget = std::min(behind <= 0 ? 0 : static_cast<uint64_t>(behind),
                               QueriesLeft(options_, r_->sent));
    const size_t n = connections_.size();
    dealt_.assign(n, false);
    size_t idle_turns = 0;  // connections passed in a row without room
    while (budget > 0 && idle_turns < n) {
      const size_t i = first_;
      first_ = (first_ + 1) % n;
      Connection& c = connections_[i];
      if (!c.connected ||
          c.outstanding >= static_cast<size_t>(options_.pipeline)) {
        ++idle_turns;
        continue;
      }
      idle_turns = 0;
      Queue(&c, now);
      dealt_[i] = true;
      --budget;
    }
    for (size_t i = 0; i < n; ++i) {
      if (dealt_[i] && !Flush(&connections_[i], i)) {
        Fail(&connections_[i], now);
      }
    }
  }

  void Queue(Connection* c, uint64_t now) {
    const uint16_t id = c->free_ids.front();
    c->free_ids.pop_front();
    const uint32_t q = next_query_;
    if (++next_query_ == queries_.queries.size()) next_query_ = 0;
    const std::vector<uint8_t>& wire = queries_.queries[q].wire;
    const size_t at = c->out.size();
    c->out.resize(at + 2 + wire.size());
    WriteU16(&c->out[at], static_cast<uint16_t>(wire.size()));
    std::memcpy(&c->out[at + 2], wire.data(), wire.size());
    WriteU16(&c->out[at + 2], id);
    c->slots[id] = {now, q};
    c->order.push_back(id);
    ++c->outstanding;
    ++r_->sent;
  }

  // Writes queued output; watches for writability while some is left. False
  // when the connection failed.
  bool Flush(Connection* c, size_t i) {
    while (c->written < c->out.size()) {
      const ssize_t put = ::write(c->fd, c->out.data() + c->written,
                                  c->out.size() - c->written);
      if (put < 0) {
        if (errno == EINTR) continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK) return false;
        break;
      }
      c->written += static_cast<size_t>(put);
    }
    if (c->written == c->out.size()) {
      c->out.clear();
      c->written = 0;
    }
    const bool waiting = !c->out.empty();
    if (waiting != c->watching_writes) {
      epoll_event event = {};
      event.events = EPOLLIN | (waiting ? EPOLLOUT : 0u);
      event.data.u64 = i;
      ::epoll_ctl(epoll_, EPOLL_CTL_MOD, c->fd, &event);
      c->watching_writes = waiting;
    }
    return true;
  }

  // Counts the oldest queries unanswered for `timeout_ns` as lost and frees
  // their room. IDs in `order` whose slot is already free were answered.
  void Expire(uint64_t now, uint64_t timeout_ns) {
    for (Connection& c : connections_) {
      while (!c.order.empty()) {
        const uint16_t id = c.order.front();
        const uint64_t sent = c.slots[id].sent_ns;
        if (sent != 0 && sent + timeout_ns > now) break;
        c.order.pop_front();
        if (sent == 0) continue;
        ++r_->timeouts;
        Release(&c, id);
      }
    }
  }

  void Release(Connection* c, uint16_t id) {
    c->slots[id].sent_ns = 0;
    c->free_ids.push_back(id);
    --c->outstanding;
  }

  // The connection failed or the server closed it: what was outstanding on
  // it is dropped, and it is reopened after a pause.
  void Fail(Connection* c, uint64_t now) {
    for (const uint16_t id : c->order) {
      if (c->slots[id].sent_ns == 0) continue;
      ++r_->dropped;
      Release(c, id);
    }
    c->order.clear();
    Close(c);
    c->retry_ns = now + kRetryNs;
  }

  void Close(Connection* c) {
    if (c->fd >= 0) ::close(c->fd);  // also leaves the epoll set
    c->fd = -1;
    c->connected = false;
    c->watching_writes = false;
    c->out.clear();
    c->written = 0;
    c->in.clear();
  }

  size_t Outstanding() const {
    size_t total = 0;
    for (const Connection& c : connections_) total += c.outstanding;
    return total;
  }

  const LoadgenOptions& options_;
  const QuerySet& queries_;
  const SocketAddress server_;
  RunResult* const r_;
  std::vector<Connection> connections_;
  std::vector<epoll_event> events_;
  std::vector<uint8_t> read_buf_;
  int epoll_ = -1;
  uint32_t next_query_ = 0;
  size_t first_ = 0;  // --rate: the connection next in line
  uint64_t next_tick_ns_ = 0;
  uint64_t start_ns_ = 0;    // sending began
  std::vector<bool> dealt_;  // --rate: connections given queries this tick
};

}  // namespace

bool RunTcp(const LoadgenOptions& options, const QuerySet& queries,
            const SocketAddress& server, RunResult* result) {
  TcpGenerator generator(options, queries, server, result);
  return generator.Run();
}

}  // namespace ax::bench
