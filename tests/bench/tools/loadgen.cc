// ax_loadgen: batched UDP DNS load generator for tests/bench/peers/run.sh.
// One thread, one connected non-blocking socket: each round sends what the
// window (and --rate) allows with sendmmsg, then drains answers with recvmmsg.
// Answers are matched by ID and question bytes; queries unanswered after
// --timeout are lost and free their slot. See --help.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <deque>
#include <string>
#include <vector>

#include "dns_query.h"
#include "latency_histogram.h"
#include "loadgen_options.h"
#include "net_util.h"
#include "query_set.h"

namespace ax::bench {
namespace {

constexpr size_t kMaxAnswer = 4096;
constexpr size_t kIds = 65536;
constexpr uint64_t kScanIntervalNs = 10'000'000;  // timeout scan every 10 ms

// The text as a JSON string body (quotes, backslashes, control characters).
std::string JsonEscape(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof(escaped), "\\u%04x", c);
      out += escaped;
    } else {
      out += c;
    }
  }
  return out;
}

struct Slot {
  uint64_t sent_ns = 0;  // 0: free
  uint32_t query = 0;    // index into QuerySet::queries
};

struct Counters {
  uint64_t sent = 0;
  uint64_t received = 0;
  uint64_t timeouts = 0;
  uint64_t unmatched = 0;
  uint64_t send_errors = 0;
  uint64_t truncated = 0;
  uint64_t rcodes[16] = {};
};

class Generator {
 public:
  Generator(const LoadgenOptions& options, QuerySet queries, int fd)
      : options_(options),
        queries_(std::move(queries)),
        fd_(fd),
        batch_(static_cast<size_t>(options.batch)),
        slots_(kIds),
        out_bufs_(batch_ * 512),
        in_bufs_(batch_ * kMaxAnswer),
        out_iov_(batch_),
        in_iov_(batch_),
        out_msgs_(batch_),
        in_msgs_(batch_),
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
    start_ns_ = MonotonicNs();
    const auto duration_ns = static_cast<uint64_t>(options_.duration_s * 1e9);
    const uint64_t end_ns = start_ns_ + duration_ns;
    const uint64_t timeout_ns =
        static_cast<uint64_t>(options_.timeout_ms) * 1'000'000ULL;
    uint64_t next_scan = start_ns_ + kScanIntervalNs;
    uint64_t now = start_ns_;
    while (now < end_ns) {
      if (!SendRound(now)) return false;
      if (!ReceiveRound()) return false;
      now = MonotonicNs();
      if (now >= next_scan) {
        ExpireOlderThan(now, timeout_ns);
        next_scan = now + kScanIntervalNs;
      }
    }
    stop_ns_ = now;
    // Drain: no more sends; wait for what is outstanding, up to the timeout.
    while (inflight_ > 0 && now < stop_ns_ + timeout_ns) {
      if (!ReceiveRound()) return false;
      now = MonotonicNs();
    }
    ExpireOlderThan(now + timeout_ns, timeout_ns);  // the rest is lost
    return true;
  }

  void PrintJson(FILE* out) const {
    const double seconds = static_cast<double>(stop_ns_ - start_ns_) / 1e9;
    const uint64_t lost = c_.sent - c_.received;
    std::fprintf(out, "{\"label\": \"%s\", \"server\": \"%s\", ",
                 JsonEscape(options_.label).c_str(),
                 JsonEscape(options_.server).c_str());
    std::fprintf(out,
                 "\"duration_s\": %.3f, \"rate_target\": %.0f, "
                 "\"inflight\": %d, \"queries\": %zu, \"subnets\": %zu, ",
                 seconds, options_.rate, options_.inflight,
                 queries_.queries.size(), queries_.subnets);
    std::fprintf(out,
                 "\"sent\": %" PRIu64 ", \"received\": %" PRIu64
                 ", \"lost\": %" PRIu64 ", \"timeouts\": %" PRIu64
                 ", \"unmatched\": %" PRIu64 ", \"send_errors\": %" PRIu64
                 ", \"truncated\": %" PRIu64 ", ",
                 c_.sent, c_.received, lost, c_.timeouts, c_.unmatched,
                 c_.send_errors, c_.truncated);
    std::fprintf(out, "\"sent_qps\": %.0f, \"qps\": %.0f, \"loss_pct\": %.4f, ",
                 static_cast<double>(c_.sent) / seconds,
                 static_cast<double>(c_.received) / seconds,
                 c_.sent ? 100.0 * static_cast<double>(lost) /
                               static_cast<double>(c_.sent)
                         : 0.0);
    std::fprintf(out,
                 "\"latency_us\": {\"mean\": %.1f, \"p50\": %" PRIu64
                 ", \"p90\": %" PRIu64 ", \"p99\": %" PRIu64
                 ", \"p999\": %" PRIu64 ", \"max\": %.1f}, ",
                 latency_.mean_us(), latency_.QuantileUs(0.5),
                 latency_.QuantileUs(0.9), latency_.QuantileUs(0.99),
                 latency_.QuantileUs(0.999), latency_.max_us());
    static constexpr const char* kRcodes[16] = {
        "NOERROR",  "FORMERR", "SERVFAIL", "NXDOMAIN", "NOTIMP",  "REFUSED",
        "YXDOMAIN", "YXRRSET", "NXRRSET",  "NOTAUTH",  "NOTZONE", "RCODE11",
        "RCODE12",  "RCODE13", "RCODE14",  "RCODE15"};
    std::fprintf(out, "\"rcodes\": {");
    const char* separator = "";
    for (int r = 0; r < 16; ++r) {
      if (c_.rcodes[r] == 0) continue;
      std::fprintf(out, "%s\"%s\": %" PRIu64, separator, kRcodes[r],
                   c_.rcodes[r]);
      separator = ", ";
    }
    std::fprintf(out, "}}\n");
  }

 private:
  bool SendRound(uint64_t now) {
    size_t want = batch_;
    const size_t room = static_cast<size_t>(options_.inflight) - inflight_;
    want = std::min(want, room);
    if (options_.rate > 0) {
      const double due =
          options_.rate * static_cast<double>(now - start_ns_) / 1e9;
      const double behind = due - static_cast<double>(c_.sent);
      want = behind <= 0 ? 0 : std::min(want, static_cast<size_t>(behind));
    }
    want = std::min(want, free_ids_.size());
    if (want == 0) return true;
    for (size_t i = 0; i < want; ++i) {
      const uint16_t id = free_ids_.front();
      free_ids_.pop_front();
      batch_ids_[i] = id;
      const uint32_t q = next_query_;
      next_query_ = (next_query_ + 1) % queries_.queries.size();
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
      ++c_.send_errors;
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
    c_.sent += static_cast<uint64_t>(n);
    inflight_ += static_cast<size_t>(n);
    return true;
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
    if (size < kDnsHeaderSize || (answer[2] & 0x80) == 0) {
      ++c_.unmatched;
      return;
    }
    const uint16_t id = ReadU16(answer);
    Slot& slot = slots_[id];
    if (slot.sent_ns == 0) {
      ++c_.unmatched;  // late answer to a query already counted lost
      return;
    }
    const QueryTemplate& query = queries_.queries[slot.query];
    // The question echoed: same bytes after the ID, flags and counts.
    if (size < query.question_end ||
        std::memcmp(answer + kDnsHeaderSize, query.wire.data() + kDnsHeaderSize,
                    query.question_end - kDnsHeaderSize) != 0) {
      ++c_.unmatched;
      return;
    }
    latency_.Add(now - slot.sent_ns);
    ++c_.received;
    ++c_.rcodes[answer[3] & 0x0F];
    if (answer[2] & 0x02) ++c_.truncated;
    Release(id);
  }

  void ExpireOlderThan(uint64_t now, uint64_t timeout_ns) {
    if (inflight_ == 0) return;
    for (size_t id = 0; id < kIds; ++id) {
      const uint64_t sent = slots_[id].sent_ns;
      if (sent != 0 && sent + timeout_ns <= now) {
        ++c_.timeouts;
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
  const QuerySet queries_;
  const int fd_;
  const size_t batch_;
  std::vector<Slot> slots_;
  std::deque<uint16_t> free_ids_;  // FIFO: an ID is reused as late as possible
  std::vector<uint8_t> out_bufs_;
  std::vector<uint8_t> in_bufs_;
  std::vector<iovec> out_iov_;
  std::vector<iovec> in_iov_;
  std::vector<mmsghdr> out_msgs_;
  std::vector<mmsghdr> in_msgs_;
  std::vector<uint16_t> batch_ids_;
  uint32_t next_query_ = 0;
  size_t inflight_ = 0;
  uint64_t start_ns_ = 0;
  uint64_t stop_ns_ = 0;
  Counters c_;
  LatencyHistogram latency_;
};

int Main(int argc, char** argv) {
  LoadgenOptions options;
  switch (ParseLoadgenOptions(argc, argv, &options)) {
    case 1:
      return 0;
    case 2:
      return 2;
    default:
      break;
  }
  QuerySet queries;
  std::string error;
  if (!BuildQuerySet(options, &queries, &error)) {
    std::fprintf(stderr, "ax_loadgen: %s\n", error.c_str());
    return 2;
  }
  for (const QueryTemplate& q : queries.queries) {
    if (q.wire.size() > 512) {
      std::fprintf(stderr, "ax_loadgen: a query is over 512 bytes\n");
      return 2;
    }
  }
  const std::optional<SocketAddress> server = ParseEndpoint(options.server);
  if (!server) {
    std::fprintf(stderr, "ax_loadgen: bad --server %s\n",
                 options.server.c_str());
    return 2;
  }
  const int fd =
      ::socket(server->family(), SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0 || ::connect(fd, server->get(), server->length) != 0) {
    std::fprintf(stderr, "ax_loadgen: %s\n",
                 ErrnoMessage("connect " + options.server).c_str());
    return 1;
  }
  RaiseSocketBuffers(fd, 4 << 20);
  FILE* out = stdout;
  if (!options.output.empty()) {
    out = std::fopen(options.output.c_str(), "w");
    if (out == nullptr) {
      std::fprintf(stderr, "ax_loadgen: %s\n",
                   ErrnoMessage("open " + options.output).c_str());
      return 1;
    }
  }
  Generator generator(options, std::move(queries), fd);
  const bool ok = generator.Run();
  ::close(fd);
  if (!ok) return 1;
  generator.PrintJson(out);
  if (out != stdout && std::fclose(out) != 0) {
    std::fprintf(stderr, "ax_loadgen: %s\n",
                 ErrnoMessage("write " + options.output).c_str());
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace ax::bench

int main(int argc, char** argv) { return ax::bench::Main(argc, argv); }
