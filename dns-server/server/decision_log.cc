// Decision log: SPSC rings, the sampling threshold and the writer thread. The
// writer wakes every flush interval (workers never notify: that would take a
// lock on the query path).
#include "server/decision_log.h"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <bit>
#include <cerrno>
#include <climits>

#include "ax/json_writer.h"
#include "ax/runtime/log.h"
#include "ax/runtime/net.h"
#include "ax/runtime/random_seed.h"
#include "server/query_counters.h"

namespace ax::dns {
namespace {

// Octets of whole lines per write(2) to the log's own file.
constexpr size_t kFileBatch = 64 << 10;

// P(Next() < threshold) == sample, for sample in [0, 1); 1 and above is
// `always_` (2^64 itself does not fit the type).
uint64_t Threshold(double sample) {
  if (sample <= 0 || sample >= 1) return 0;
  return static_cast<uint64_t>(sample * 0x1.0p64);
}

std::string Reason(const Snapshot& s, const Route& route,
                   const Answer& answer) {
  std::string reason = RouteSourceName(route.source);
  if (!route.via.empty()) reason += " via " + route.via;
  if (answer.spilled) reason += " (spill-over: its region is past the knee)";
  for (const std::string& rule : route.rules) reason += "; rule " + rule;
  if (route.canary != kNoIndex) {
    reason += "; canary " + s.canaries[route.canary].name +
              (answer.canary ? " (in cohort)" : " (not in cohort)");
  }
  if (route.hysteresis_held) reason += "; hysteresis held the primary";
  return reason;
}

}  // namespace

void AppendDecision(const DecisionRecord& r, std::string& out) {
  const Snapshot& s = r.state->snapshot();
  const SnapshotDomain& domain = s.domains[r.info.domain];
  const Route& route = s.routes[r.info.decision.route];
  const Answer& answer = r.info.decision;
  const ClientAddress& c = r.info.client;
  JsonWriter w(out);
  w.BeginObject();
  w.Key("ts");
  w.Int(r.ts_ms);
  w.Key("msg");
  w.String("decision");
  w.Key("client");
  w.String(FormatIp(r.source));
  w.Key("ecs");
  if (c.from_ecs) {
    w.String(FormatPrefix({c.address, c.prefix_length}));
  } else {
    w.Null();
  }
  w.Key("protocol");
  w.String(ProtocolLabel(static_cast<size_t>(r.transport)));
  w.Key("qname");
  w.String(domain.fqdn);
  w.Key("qtype");
  w.String(QtypeText(r.info.qtype));
  w.Key("domain");
  w.String(domain.name);
  const SnapshotRegion* region =
      r.info.region != kNoIndex ? &s.regions[r.info.region] : nullptr;
  for (const auto& [key, field] : {std::pair{"region", &SnapshotRegion::name},
                                   std::pair{"area", &SnapshotRegion::area},
                                   std::pair{"isp", &SnapshotRegion::isp}}) {
    w.Key(key);
    if (region) {
      w.String(region->*field);
    } else {
      w.Null();
    }
  }
  w.Key("source");
  w.String(RouteSourceName(route.source));
  w.Key("candidates");
  w.BeginArray();
  for (const Candidate& cand : route.candidates) {
    w.BeginObject();
    w.Key("node");
    w.String(s.nodes[cand.node].name);
    w.Key("weight");
    w.Double(cand.weight);
    w.Key("score");
    w.Double(cand.score.Total());
    w.EndObject();
  }
  w.EndArray();
  w.Key("chosen");
  w.BeginArray();
  for (uint32_t i = 0; i < answer.count; ++i) {
    w.String(s.nodes[answer.nodes[i]].name);
  }
  w.EndArray();
  w.Key("canary");
  w.Bool(answer.canary);
  w.Key("spilled");
  w.Bool(answer.spilled);
  w.Key("ttl");
  w.Uint(answer.ttl);
  w.Key("ttlReason");
  w.String(TtlReasonName(answer.ttl_reason));
  w.Key("reason");
  w.String(Reason(s, route, answer));
  w.Key("snapshotVersion");
  w.Uint(s.version);
  w.EndObject();
}

DecisionLog::Producer::Producer(size_t capacity, double sample, uint64_t seed)
    : slots_(std::bit_ceil(std::max<size_t>(capacity, 2))),
      mask_(slots_.size() - 1),
      always_(sample >= 1),
      threshold_(Threshold(sample)),
      rng_(seed) {}

void DecisionLog::Producer::Push(const DecisionRecord& record) {
  const size_t tail = tail_.load(std::memory_order_relaxed);
  if (tail - head_.load(std::memory_order_acquire) > mask_) {
    dropped_.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  slots_[tail & mask_] = record;
  tail_.store(tail + 1, std::memory_order_release);
}

DecisionLog::DecisionLog(DecisionLogOptions options)
    : options_(std::move(options)) {}

DecisionLog::~DecisionLog() {
  Stop();
  if (own_fd_) ::close(fd_);
}

DecisionLog::Producer* DecisionLog::AddProducer() {
  const uint64_t seed = runtime::RandomSeed();
  producers_.push_back(
      std::make_unique<Producer>(options_.ring, options_.sample, seed));
  return producers_.back().get();
}

bool DecisionLog::Start(std::string* error) {
  if (options_.path == "-") {
    fd_ = STDERR_FILENO;
  } else {
    fd_ = ::open(options_.path.c_str(),
                 O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd_ < 0) {
      *error =
          "decision log " + options_.path + ": " + runtime::ErrnoText(errno);
      return false;
    }
    own_fd_ = true;
  }
  thread_ = std::thread([this] { Run(); });
  return true;
}

void DecisionLog::Stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

uint64_t DecisionLog::dropped() const {
  uint64_t n = 0;
  for (const auto& p : producers_) n += p->dropped_.load();
  return n;
}

void DecisionLog::Run() {
  // The log must never cost an answer: formatting a flush interval's lines
  // takes milliseconds, which on a core shared with a worker would stall its
  // socket for as long (queries queue, then drop). SCHED_IDLE runs the writer
  // only when no worker wants the core; under saturation the rings fill and
  // what does not fit is counted as dropped instead.
  pthread_setname_np(pthread_self(), "decision-log");
  const sched_param idle = {};
  if (sched_setscheduler(0, SCHED_IDLE, &idle) != 0) {
    runtime::Log(runtime::LogLevel::kWarn,
                 "decision log writer keeps the normal scheduling class",
                 {{"error", runtime::ErrnoText(errno)}});
  }
  std::unique_lock lock(mu_);
  while (!wake_.wait_for(lock, options_.flush_interval,
                         [this] { return stopping_; })) {
    lock.unlock();
    Drain();
    lock.lock();
  }
  lock.unlock();
  Drain();
}

void DecisionLog::Drain() {
  // Whole lines batched into one write(2): to a file opened O_APPEND, each
  // write lands whole; to a shared stderr (a pipe, usually), only writes of at
  // most PIPE_BUF octets are atomic (POSIX), so lines never interleave with the
  // server log there either.
  const size_t limit = own_fd_ ? kFileBatch : PIPE_BUF;
  std::string batch;
  std::string line;  // reused: no allocation per line once grown
  uint64_t lines = 0;
  auto flush = [&] {
    if (lines > 0 && WriteAll(batch)) {
      written_.fetch_add(lines, std::memory_order_relaxed);
    }
    batch.clear();
    lines = 0;
  };
  for (const auto& p : producers_) {
    size_t head = p->head_.load(std::memory_order_relaxed);
    const size_t tail = p->tail_.load(std::memory_order_acquire);
    for (; head != tail; ++head) {
      DecisionRecord& slot = p->slots_[head & p->mask_];
      line.clear();
      AppendDecision(slot, line);
      slot.state.reset();  // the snapshot is released here, not by a worker
      line += '\n';
      if (batch.size() + line.size() > limit) flush();
      batch += line;
      ++lines;
    }
    p->head_.store(head, std::memory_order_release);
  }
  flush();
}

bool DecisionLog::WriteAll(std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd_, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      write_errors_.fetch_add(1, std::memory_order_relaxed);
      return false;
    }
    text.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

}  // namespace ax::dns
