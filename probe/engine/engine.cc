// The one-thread probe engine (engine.h).
#include "engine/engine.h"

#include <errno.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <unordered_set>
#include <utility>

#include "ax/runtime/clock.h"
#include "ax/runtime/sigpipe.h"

namespace ax::probe {

namespace {

constexpr uint64_t kWakeId =
    0;  // epoll data of the eventfd; probe ids start at 1
constexpr int kMaxEvents = 64;
// Upper bound on one wait, so a missed wake-up can only cost this much.
constexpr int64_t kMaxWaitMs = 1000;

NodeTiming TimingOf(const HealthCheck& check) {
  return {static_cast<int64_t>(check.interval_ms),
          static_cast<int64_t>(check.timeout_ms)};
}

}  // namespace

ProbeEngine::ProbeEngine(EngineConfig config, ProbeSink sink)
    : config_(std::move(config)),
      sink_(std::move(sink)),
      scheduler_(config_.scheduler),
      rng_(config_.seed),
      sessions_(config_.tls_session_max_age_ms) {
  if (!config_.wall_ms) config_.wall_ms = runtime::WallMs;
  conn_options_.token_header = config_.token_header;
  conn_options_.max_body_bytes = config_.max_body_bytes;
  // Made here, not in Start, so SetTargets never races with its creation.
  wake_.Reset(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC));
}

ProbeEngine::~ProbeEngine() { Stop(); }

bool ProbeEngine::Start(std::string* error) {
  if (started_) {
    // A stopped engine's scheduler still remembers probes it abandoned.
    *error = "an engine starts once; make a new one";
    return false;
  }
  tls_ = MakeClientTlsContext(config_.tls, error);
  if (!tls_) return false;
  conn_options_.tls = tls_.get();
  epoll_.Reset(::epoll_create1(EPOLL_CLOEXEC));
  if (!epoll_.valid() || !wake_.valid()) {
    *error = "epoll/eventfd: " + runtime::ErrnoText(errno);
    return false;
  }
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u64 = kWakeId;
  if (::epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, wake_.get(), &ev) != 0) {
    *error = "epoll_ctl: " + runtime::ErrnoText(errno);
    return false;
  }
  started_ = true;
  thread_ = std::thread([this] { Loop(); });
  return true;
}

void ProbeEngine::Stop() {
  if (!thread_.joinable()) return;
  stop_ = true;
  const uint64_t one = 1;
  (void)!::write(wake_.get(), &one, sizeof(one));
  thread_.join();
}

void ProbeEngine::SetTargets(std::vector<ProbeTarget> targets) {
  {
    std::lock_guard lock(pending_mu_);
    pending_ = std::move(targets);
  }
  if (wake_.valid()) {
    const uint64_t one = 1;
    (void)!::write(wake_.get(), &one, sizeof(one));
  }
}

std::map<std::string, NodeProbeState> ProbeEngine::Snapshot() const {
  std::lock_guard lock(state_mu_);
  std::map<std::string, NodeProbeState> out;
  for (const auto& [name, state] : states_) out.emplace(name, state.view);
  return out;
}

StatusMap ProbeEngine::Statuses() const {
  std::lock_guard lock(state_mu_);
  StatusMap out;
  for (const auto& [name, state] : states_) {
    out.emplace(name, state.tracker.ToStatus());
  }
  return out;
}

EngineCounters ProbeEngine::Counters() const {
  std::lock_guard lock(state_mu_);
  return counters_;
}

void ProbeEngine::Loop() {
  // Named so top -H and /proc/PID/task/*/comm show what the probing costs.
  pthread_setname_np(pthread_self(), "ax-probe");
  runtime::SigpipeGuard no_sigpipe;
  std::array<epoll_event, kMaxEvents> events;
  while (!stop_) {
    const int64_t now_ms = runtime::MonoUs() / 1000;
    ApplyPendingTargets(now_ms);
    HandleExpired(now_ms);
    LaunchDue(now_ms);

    int wait_ms = static_cast<int>(kMaxWaitMs);
    if (const auto wake = scheduler_.NextWakeMs()) {
      wait_ms = static_cast<int>(
          std::clamp<int64_t>(*wake - runtime::MonoUs() / 1000, 0, kMaxWaitMs));
    }
    const int n =
        ::epoll_wait(epoll_.get(), events.data(), kMaxEvents, wait_ms);
    if (n < 0) continue;  // EINTR; anything else would repeat on the next turn
    for (int i = 0; i < n; ++i) {
      if (events[i].data.u64 == kWakeId) {
        uint64_t count = 0;
        (void)!::read(wake_.get(), &count, sizeof(count));
        continue;
      }
      OnConnectionEvent(events[i].data.u64);
    }
  }
  for (auto& [id, running] : running_) {
    if (running.registered) {
      ::epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, running.conn->fd(), nullptr);
    }
  }
  running_.clear();
}

void ProbeEngine::ApplyPendingTargets(int64_t now_ms) {
  std::optional<std::vector<ProbeTarget>> pending;
  {
    std::lock_guard lock(pending_mu_);
    pending.swap(pending_);
  }
  if (!pending) return;

  std::map<std::string, ProbeTarget> next;
  for (auto& target : *pending) {
    next.emplace(target.node, std::move(target));  // first one wins
  }
  // Removed nodes: stop now, forget the state.
  for (auto it = targets_.begin(); it != targets_.end();) {
    if (next.count(it->first)) {
      ++it;
      continue;
    }
    if (const uint64_t id = scheduler_.Remove(it->first)) Cancel(id);
    sessions_.Drop(it->first);
    {
      std::lock_guard lock(state_mu_);
      states_.erase(it->first);
    }
    it = targets_.erase(it);
  }
  for (auto& [name, target] : next) {
    auto old = targets_.find(name);
    if (old != targets_.end() && !SameProbe(old->second, target)) {
      // Probing differently now: a result of the old probe would describe
      // the old spec. Start over as a new node (probed at once).
      if (const uint64_t id = scheduler_.Remove(name)) Cancel(id);
      sessions_.Drop(name);
    }
    scheduler_.Upsert(name, TimingOf(target.check), now_ms, rng_);
    {
      std::lock_guard lock(state_mu_);
      NodeState& state = states_[name];
      state.policy = HealthPolicy::FromHealthCheck(target.check);
      state.view.node = name;
      state.view.address = target.address;
      state.view.protocol = target.check.protocol;
    }
    targets_[name] = std::move(target);
  }
}

void ProbeEngine::HandleExpired(int64_t now_ms) {
  for (const Launch& launch : scheduler_.TakeExpired(now_ms, rng_)) {
    auto it = running_.find(launch.probe_id);
    if (it == running_.end()) continue;
    ProbeConnection& conn = *it->second.conn;
    conn.Abort(ProbeError::kTimeout,
               "no answer within " +
                   std::to_string(launch.deadline_ms - launch.started_ms) +
                   " ms (" + conn.phase_name() + ")",
               runtime::MonoUs());
    {
      std::lock_guard lock(state_mu_);
      ++counters_.timeouts;
    }
    FinishConnection(launch.probe_id, /*scheduler_already_done=*/true);
  }
}

void ProbeEngine::LaunchDue(int64_t now_ms) {
  for (const Launch& launch : scheduler_.TakeDue(now_ms)) {
    auto target = targets_.find(launch.node);
    if (target == targets_.end()) {  // cannot happen: both sets move together
      scheduler_.Remove(launch.node);
      continue;
    }
    const ProbeTarget& spec = target->second;
    SslSessionPtr resume;
    if (spec.check.protocol == ProbeProtocol::kHttps) {
      resume = sessions_.Find(spec.node, TlsPeerOf(spec), config_.wall_ms());
    }
    auto conn = std::make_unique<ProbeConnection>(spec, conn_options_,
                                                  std::move(resume));
    conn->Start(runtime::MonoUs());
    {
      std::lock_guard lock(state_mu_);
      ++counters_.started;
    }
    ProbeConnection& ref = *conn;
    running_[launch.probe_id] = Running{std::move(conn), 0};
    if (ref.done()) {
      FinishConnection(launch.probe_id, false);
    } else {
      Watch(launch.probe_id, ref, /*add=*/true);
    }
  }
}

void ProbeEngine::Watch(uint64_t id, ProbeConnection& conn, bool add) {
  Running& running = running_[id];
  if (!add && running.registered == conn.events()) return;
  epoll_event ev{};
  ev.events = conn.events();
  ev.data.u64 = id;
  if (::epoll_ctl(epoll_.get(), add ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, conn.fd(),
                  &ev) != 0) {
    conn.Abort(ProbeError::kConnect, "epoll_ctl: " + runtime::ErrnoText(errno),
               runtime::MonoUs());
    FinishConnection(id, false);
    return;
  }
  running.registered = conn.events();
}

void ProbeEngine::OnConnectionEvent(uint64_t id) {
  auto it = running_.find(id);
  if (it == running_.end()) return;  // cancelled earlier in this batch
  ProbeConnection& conn = *it->second.conn;
  conn.OnReady(runtime::MonoUs());
  if (conn.done()) {
    FinishConnection(id, false);
  } else {
    Watch(id, conn, /*add=*/false);
  }
}

void ProbeEngine::Cancel(uint64_t id) {
  auto it = running_.find(id);
  if (it == running_.end()) return;
  if (it->second.registered) {
    ::epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, it->second.conn->fd(), nullptr);
  }
  running_.erase(it);
  std::lock_guard lock(state_mu_);
  ++counters_.discarded;
}

void ProbeEngine::FinishConnection(uint64_t id, bool scheduler_already_done) {
  auto it = running_.find(id);
  if (it == running_.end()) return;
  std::unique_ptr<ProbeConnection> conn = std::move(it->second.conn);
  if (it->second.registered) {
    ::epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, conn->fd(), nullptr);
  }
  running_.erase(it);
  const bool current = scheduler_already_done ||
                       scheduler_.Complete(id, runtime::MonoUs() / 1000, rng_);
  if (!current) {
    std::lock_guard lock(state_mu_);
    ++counters_.discarded;
    return;
  }
  KeepOrDropSession(*conn);
  Record(conn->target(), conn->outcome());
}

void ProbeEngine::KeepOrDropSession(const ProbeConnection& conn) {
  const ProbeTarget& target = conn.target();
  if (target.check.protocol != ProbeProtocol::kHttps) return;
  if (!conn.outcome().ok()) {
    // Whatever failed (the certificate, the server, the network), the next
    // probe verifies from scratch rather than trusting an older handshake.
    sessions_.Drop(target.node);
    return;
  }
  sessions_.Keep(target.node, TlsPeerOf(target), conn.ResumableSession(),
                 conn.outcome().tls_resumed, config_.wall_ms());
}

void ProbeEngine::Record(const ProbeTarget& target,
                         const ProbeOutcome& outcome) {
  ProbeEvent event;
  {
    std::lock_guard lock(state_mu_);
    auto it = states_.find(target.node);
    if (it == states_.end()) return;  // removed meanwhile
    NodeState& state = it->second;
    NodeProbeState& view = state.view;
    const int64_t at_ms = std::max(config_.wall_ms(), view.last_at_ms + 1);
    event.result = ToProbeResult(outcome, at_ms);
    event.transition = state.tracker.Observe(event.result, state.policy);

    ++counters_.finished;
    if (outcome.phases.tls_ms) ++counters_.tls_handshakes;
    if (outcome.tls_resumed) ++counters_.tls_resumed;
    ++view.probes;
    if (!outcome.ok()) {
      ++view.failures;
      ++view.errors[outcome.error];
    }
    if (event.transition.changed) ++view.state_changes;
    view.transitions = state.tracker.transitions();
    view.consecutive_successes = state.tracker.consecutive_successes();
    view.consecutive_failures = state.tracker.consecutive_failures();
    view.suppressed = state.tracker.suppressed();
    view.flap_penalty = state.tracker.flap_penalty();
    view.status = state.tracker.ToStatus();
    view.last = outcome;
    view.last_at_ms = at_ms;
    event.health = state.tracker.state();
  }
  if (!sink_) return;
  event.node = target.node;
  event.address = target.address;
  event.protocol = target.check.protocol;
  event.outcome = outcome;
  sink_(event);
}

}  // namespace ax::probe
