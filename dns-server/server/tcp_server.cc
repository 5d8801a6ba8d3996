// TCP event loops: level-triggered epoll over listeners, connections and the
// stop signal; a periodic sweep enforces the idle and message timeouts.
// Answers go into a per-connection output buffer flushed as the socket takes
// it; while too much is unsent, the connection's queries wait (no reading),
// and input is read only while it fits one whole message. Each connection's
// buffered bytes are added to the server's total after every event.
#include "server/tcp_server.h"

#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <unordered_map>

#include "ax/runtime/clock.h"
#include "ax/runtime/log.h"
#include "ax/runtime/random_seed.h"
#include "server/counter.h"
#include "server/tcp_framing.h"
#include "server/telemetry.h"

namespace ax::dns {
namespace {

using Clock = std::chrono::steady_clock;

// Unsent output above which a connection is neither read nor answered: the
// socket's own buffer holds more, so a client that reads never waits on it.
constexpr size_t kMaxUnsentOutput = 16 << 10;
// Buffered input: one whole message of the largest size and its prefix.
constexpr size_t kMaxInput = 2 + 65535;
constexpr size_t kReadChunk = 64 << 10;
constexpr int kBacklog = 1024;

}  // namespace

class TcpServer::Loop {
 public:
  Loop(TcpServer& server, uint64_t seed)
      : server_(server),
        epoll_(::epoll_create1(EPOLL_CLOEXEC)),
        responder_(server.context_.responder, seed, server.context_.rrl),
        observer_(server.context_.telemetry->AddWorker()),
        refs_(server.context_),
        answer_(65535),
        read_buf_(kReadChunk) {}

  bool AddListener(runtime::Fd fd, std::string* error) {
    if (::listen(fd.get(), kBacklog) != 0) {
      *error = "listen: " + runtime::ErrnoText(errno);
      return false;
    }
    Watch(fd.get(), EPOLLIN, EPOLL_CTL_ADD);
    listeners_.push_back(std::move(fd));
    return true;
  }

  void Start() {
    Watch(server_.stop_.fd(), EPOLLIN, EPOLL_CTL_ADD);
    thread_ = std::thread([this] { Run(); });
  }
  void Join() {
    if (thread_.joinable()) thread_.join();
  }

  Counter accepted, rejected, rejected_source, queries, closed_idle,
      closed_slow, closed_evicted, closed_budget, closed_buffered;

 private:
  struct Conn {
    runtime::Fd fd;
    IpAddress peer;
    FrameReader in;
    FrameWriter out;
    Clock::time_point last_active;  // when the client last sent bytes
    Clock::time_point message_started;
    uint32_t queries = 0;
    bool in_message = false;
    bool read_closed = false;  // the client half-closed, or its budget is used
    uint32_t events = 0;       // what epoll watches now
    int64_t counted = 0;       // bytes this connection adds to buffered_
    size_t pending() const { return out.unsent(); }
    int64_t buffered() const {
      return static_cast<int64_t>(in.buffered() + out.unsent());
    }
    // Waiting for the client: no message begun, nothing to send.
    bool waiting() const { return !in_message && pending() == 0; }
  };

  void Watch(int fd, uint32_t events, int op) {
    epoll_event ev{};
    ev.events = events;
    ev.data.fd = fd;
    ::epoll_ctl(epoll_.get(), op, fd, &ev);
  }

  void Run() {
    const auto shortest = std::min(server_.options_.idle_timeout,
                                   server_.options_.message_timeout);
    const int tick_ms =
        static_cast<int>(std::clamp<int64_t>(shortest.count() / 4, 5, 1000));
    epoll_event events[64];
    Clock::time_point next_sweep = Clock::now();
    while (true) {
      const int n = ::epoll_wait(epoll_.get(), events, 64, tick_ms);
      if (n < 0 && errno != EINTR) {
        runtime::Log(runtime::LogLevel::kError, "tcp epoll_wait failed",
                     {{"error", runtime::ErrnoText(errno)}});
        return;
      }
      // A quiet tick: nothing here keeps a replaced state alive.
      if (n == 0) refs_.Release();
      for (int i = 0; i < n; ++i) {
        const int fd = events[i].data.fd;
        if (fd == server_.stop_.fd()) return;
        if (IsListener(fd)) {
          Accept(fd);
          continue;
        }
        const auto it = conns_.find(fd);
        if (it == conns_.end()) continue;  // closed earlier in this round
        Conn& c = *it->second;
        bool alive = true;
        if (events[i].events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) {
          alive = OnReadable(c);
        }
        if (alive && (events[i].events & EPOLLOUT)) alive = OnWritable(c);
        if (alive) alive = Settle(c);
        if (!alive) {
          Close(fd);
        } else {
          Account(c);
          if (server_.buffered_.load(std::memory_order_relaxed) >
              static_cast<int64_t>(server_.options_.max_buffered_bytes)) {
            ShedLargest();
          }
        }
      }
      const Clock::time_point now = Clock::now();
      if (now >= next_sweep) {
        Sweep(now);
        next_sweep = now + std::chrono::milliseconds(tick_ms);
      }
    }
  }

  bool IsListener(int fd) const {
    return std::any_of(listeners_.begin(), listeners_.end(),
                       [fd](const runtime::Fd& l) { return l.get() == fd; });
  }

  void Accept(int listen_fd) {
    while (true) {
      sockaddr_storage sa{};
      socklen_t len = sizeof(sa);
      const int fd = ::accept4(listen_fd, reinterpret_cast<sockaddr*>(&sa),
                               &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) {
        if (errno == EINTR || errno == ECONNABORTED) continue;
        if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
            errno == ENOMEM) {
          // Out of descriptors: stop listening until the next sweep, or the
          // level-triggered listener would spin.
          PauseListeners(true);
          runtime::Log(runtime::LogLevel::kWarn,
                       "tcp accept paused: out of file descriptors",
                       {{"error", runtime::ErrnoText(errno)}});
        }
        return;
      }
      runtime::Fd conn_fd(fd);
      const IpAddress peer = runtime::Endpoint::FromSockaddr(sa).ip;
      if (!server_.sources_.Admit(peer)) {
        rejected_source.Add();
        continue;  // conn_fd closes: its source holds enough already
      }
      if (server_.open_.fetch_add(1) >= server_.options_.max_connections &&
          !EvictIdlest()) {
        server_.open_.fetch_sub(1);
        server_.sources_.Release(peer);
        rejected.Add();
        continue;  // every connection here is busy: the newcomer is refused
      }
      const int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
      auto c = std::make_unique<Conn>();
      c->fd = std::move(conn_fd);
      c->peer = peer;
      c->last_active = Clock::now();
      c->events = EPOLLIN | EPOLLRDHUP;
      Watch(fd, c->events, EPOLL_CTL_ADD);
      conns_.emplace(fd, std::move(c));
      accepted.Add();
    }
  }

  void PauseListeners(bool pause) {
    if (pause == listeners_paused_) return;
    listeners_paused_ = pause;
    for (const runtime::Fd& l : listeners_) {
      Watch(l.get(), pause ? 0u : uint32_t{EPOLLIN}, EPOLL_CTL_MOD);
    }
  }

  // At the connection limit: closes this loop's connection that has waited
  // for its client longest, if any is waiting at all; the slot it frees is
  // the newcomer's.
  bool EvictIdlest() {
    Conn* idlest = nullptr;
    for (const auto& [fd, c] : conns_) {
      if (c->waiting() && (!idlest || c->last_active < idlest->last_active)) {
        idlest = c.get();
      }
    }
    if (!idlest) return false;
    closed_evicted.Add();
    Close(idlest->fd.get());
    return true;
  }

  // The total is over its bound: the connection holding the most goes.
  void ShedLargest() {
    Conn* largest = nullptr;
    for (const auto& [fd, c] : conns_) {
      if (!largest || c->counted > largest->counted) largest = c.get();
    }
    if (!largest || largest->counted == 0) return;
    closed_buffered.Add();
    Close(largest->fd.get());
  }

  // Reads what is there (unless output is backed up, or a whole message is
  // already buffered) and answers every complete query. False: close the
  // connection.
  bool OnReadable(Conn& c) {
    for (int round = 0; round < 4 && !c.read_closed; ++round) {
      if (c.pending() > kMaxUnsentOutput) break;
      const size_t room = kMaxInput - std::min(kMaxInput, c.in.buffered());
      if (room == 0) break;
      const ssize_t n = ::recv(c.fd.get(), read_buf_.data(),
                               std::min(room, read_buf_.size()), 0);
      if (n > 0) {
        c.last_active = Clock::now();
        c.in.Append({read_buf_.data(), static_cast<size_t>(n)});
        if (!Answer(c)) return false;
        if (static_cast<size_t>(n) < std::min(room, read_buf_.size())) break;
      } else if (n == 0) {
        c.read_closed = true;  // half-close: still answer what was asked
      } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
        break;
      } else if (errno != EINTR) {
        return false;
      }
    }
    return true;
  }

  // Answers buffered complete queries until the output is backed up.
  bool Answer(Conn& c) {
    const QueryRefs* refs = nullptr;  // checked once there is a query
    const QueryMeta meta{c.peer, Transport::kTcp, runtime::CoarseWallMs(),
                         static_cast<uint64_t>(runtime::CoarseMonoUs())};
    const uint32_t budget = server_.options_.max_queries_per_connection;
    bool completed = false;
    while (c.pending() <= kMaxUnsentOutput) {
      if (budget > 0 && c.queries >= budget && !c.read_closed) {
        // Read its share: nothing more is read, and it closes once
        // everything answered has gone out. The queries it pipelined that
        // were already read (at most kMaxInput octets) are answered first: a
        // client retries what is unanswered at the close (RFC 7766 section
        // 6.2.4), so dropping them would only cost it a round trip.
        closed_budget.Add();
        c.read_closed = true;
      }
      const std::optional<std::span<const uint8_t>> query = c.in.Next();
      if (!query) break;
      if (query->empty()) return false;  // a zero-length message: no DNS
      completed = true;
      ++c.queries;
      queries.Add();
      if (!refs) refs = &refs_.Get();
      const size_t size =
          observer_->Respond(responder_, *refs, meta, *query, answer_);
      if (size > 0) c.out.Append({answer_.data(), size});
    }
    c.in.Compact();
    if (completed) c.in_message = false;
    if (c.in.partial() && !c.in_message) {
      c.in_message = true;
      c.message_started = Clock::now();
    }
    return true;
  }

  // What the client is sent does not count as activity: a client that never
  // reads must not keep its connection by being written to.
  bool OnWritable(Conn& c) {
    while (c.pending() > 0) {
      const std::span<const uint8_t> unsent = c.out.Unsent();
      const ssize_t n =
          ::send(c.fd.get(), unsent.data(), unsent.size(), MSG_NOSIGNAL);
      if (n > 0) {
        c.out.Sent(static_cast<size_t>(n));
      } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
        break;
      } else if (errno != EINTR) {
        return false;
      }
    }
    return true;
  }

  // After any event: flush, answer what waited for the output to drain, and
  // watch for what the connection needs next. False: close it.
  bool Settle(Conn& c) {
    if (!OnWritable(c)) return false;
    if (c.pending() <= kMaxUnsentOutput && !Answer(c)) return false;
    if (!OnWritable(c)) return false;
    if (c.read_closed && c.pending() == 0) return false;  // all answered
    uint32_t want = 0;
    if (!c.read_closed && c.pending() <= kMaxUnsentOutput) {
      want |= EPOLLIN | EPOLLRDHUP;
    }
    if (c.pending() > 0) want |= EPOLLOUT;
    if (want != c.events) {
      c.events = want;
      Watch(c.fd.get(), want, EPOLL_CTL_MOD);
    }
    return true;
  }

  // The connection's bytes into the server's total.
  void Account(Conn& c) {
    const int64_t now = c.buffered();
    if (now != c.counted) {
      server_.buffered_.fetch_add(now - c.counted, std::memory_order_relaxed);
      c.counted = now;
    }
  }

  // Drops the connection, what it counted and its slots.
  void Close(int fd) {
    const auto it = conns_.find(fd);
    if (it == conns_.end()) return;
    server_.buffered_.fetch_sub(it->second->counted, std::memory_order_relaxed);
    server_.sources_.Release(it->second->peer);
    conns_.erase(it);
    server_.open_.fetch_sub(1);
  }

  void Sweep(Clock::time_point now) {
    PauseListeners(false);
    std::vector<int> expired;
    for (const auto& [fd, c] : conns_) {
      if (c->in_message &&
          now - c->message_started > server_.options_.message_timeout) {
        closed_slow.Add();
        expired.push_back(fd);
      } else if (now - c->last_active > server_.options_.idle_timeout) {
        closed_idle.Add();
        expired.push_back(fd);
      }
    }
    for (int fd : expired) Close(fd);
  }

  TcpServer& server_;
  runtime::Fd epoll_;
  std::vector<runtime::Fd> listeners_;
  bool listeners_paused_ = false;
  std::unordered_map<int, std::unique_ptr<Conn>> conns_;
  Responder responder_;
  QueryObserver* observer_;
  WorkerRefs refs_;
  std::vector<uint8_t> answer_;
  std::vector<uint8_t> read_buf_;
  std::thread thread_;
};

TcpServer::TcpServer(TcpOptions options, QueryContext context)
    : options_(std::move(options)),
      context_(std::move(context)),
      sources_(options_.max_connections_per_source) {}

TcpServer::~TcpServer() { Stop(); }

bool TcpServer::Start(std::string* error) {
  const uint64_t seed = options_.seed ? options_.seed : runtime::RandomSeed();
  const int n = std::max(1, options_.threads);
  for (int t = 0; t < n; ++t) {
    loops_.push_back(
        std::make_unique<Loop>(*this, seed + 0xD1B54A32D192ED03ULL * (t + 1)));
  }
  bound_ = options_.listen;
  for (runtime::Endpoint& at : bound_) {
    for (auto& loop : loops_) {
      runtime::Fd fd = runtime::BindSocket(at, SOCK_STREAM, error);
      if (!fd.valid()) return false;
      if (at.port == 0) at = runtime::LocalEndpoint(fd.get());
      if (!loop->AddListener(std::move(fd), error)) return false;
    }
  }
  for (auto& loop : loops_) loop->Start();
  std::vector<std::string> addresses;
  for (const runtime::Endpoint& e : bound_) addresses.push_back(e.ToString());
  runtime::Log(runtime::LogLevel::kInfo, "tcp listening",
               {{"addresses", addresses},
                {"threads", n},
                {"max_connections", options_.max_connections}});
  return true;
}

void TcpServer::Stop() {
  stop_.Signal();
  for (auto& loop : loops_) loop->Join();
}

TcpStats TcpServer::stats() const {
  TcpStats s;
  for (const auto& loop : loops_) {
    s.accepted += loop->accepted.Get();
    s.rejected += loop->rejected.Get();
    s.rejected_source += loop->rejected_source.Get();
    s.queries += loop->queries.Get();
    s.closed_idle += loop->closed_idle.Get();
    s.closed_slow += loop->closed_slow.Get();
    s.closed_evicted += loop->closed_evicted.Get();
    s.closed_budget += loop->closed_budget.Get();
    s.closed_buffered += loop->closed_buffered.Get();
  }
  s.open = open_.load();
  s.buffered_bytes = buffered_.load(std::memory_order_relaxed);
  return s;
}

}  // namespace ax::dns
