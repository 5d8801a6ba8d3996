// The leader-election loop: reads, writes, waits, callbacks
// (leader_election.h).
#include "ax/kube/leader_election.h"

#include <algorithm>

#include "ax/kube/owner_references.h"
#include "json_util.h"

namespace ax::kube {
namespace {

using std::chrono::steady_clock;
using std::chrono::system_clock;

// The least time a call gets even when the deadline is nearly spent: less
// cannot complete a request, and the deadline check follows it anyway.
constexpr std::chrono::milliseconds kMinCallTimeout{50};

CallOptions Until(SteadyTime deadline, CancelToken* cancel) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - steady_clock::now());
  return CallOptions{std::max(left, kMinCallTimeout), cancel};
}

}  // namespace

Result<std::unique_ptr<LeaderElector>> LeaderElector::Create(
    Client& client, LeaderElectionConfig config) {
  if (auto ok = ValidateTiming(config.timing); !ok) return ok.error();
  if (config.identity.empty() || config.lease.name.empty()) {
    return Error{0, std::string(kReasonInvalidConfig),
                 "leader election: identity and lease name are required"};
  }
  return std::unique_ptr<LeaderElector>(
      new LeaderElector(client, std::move(config)));
}

LeaderElector::LeaderElector(Client& client, LeaderElectionConfig config)
    : client_(client),
      config_(std::move(config)),
      random_(config_.random ? config_.random : OsSeededRandom()) {}

LeaderElector::~LeaderElector() { Stop(); }

void LeaderElector::Start() {
  if (thread_.joinable() || cancel_.canceled()) return;
  thread_ = std::thread([this] { Run(); });
}

void LeaderElector::Stop() {
  cancel_.Cancel();
  if (thread_.joinable()) thread_.join();
}

void LeaderElector::Report(const Error& error) {
  if (config_.on_error) config_.on_error(error);
}

void LeaderElector::SetLeading(bool leading) {
  leading_.store(leading, std::memory_order_release);
  const auto& callback =
      leading ? config_.on_started_leading : config_.on_stopped_leading;
  if (callback) callback();
}

bool LeaderElector::TryAcquireOrRenew(SteadyTime deadline) {
  auto read = client_.Get(config_.lease, Until(deadline, &cancel_));
  if (!read && !read.error().IsNotFound()) {
    Report(read.error());
    return false;
  }
  std::optional<LeaseSpec> current;
  if (read) {
    lease_object_ = std::move(*read);
    current = LeaseSpecOf(lease_object_);
  }
  const LeaseDecision decision =
      DecideLease(current, config_.identity, config_.timing,
                  steady_clock::now(), system_clock::now(), &memory_);
  if (decision.action == LeaseAction::kWait) return false;

  const bool create = decision.action == LeaseAction::kCreate;
  // A new Lease, or the one read (which keeps metadata.resourceVersion).
  nlohmann::json lease =
      create ? nlohmann::json{{"apiVersion", config_.lease.ApiVersion()},
                              {"kind", "Lease"},
                              {"metadata",
                               {{"name", config_.lease.name},
                                {"namespace", config_.lease.ns}}}}
             : lease_object_;
  SetLeaseSpec(decision.desired, &lease);
  AddOwnerReferences(config_.owner_references, &lease);
  auto written =
      create ? client_.Create(config_.lease, lease, Until(deadline, &cancel_))
             : client_.Update(config_.lease, lease, Until(deadline, &cancel_));
  if (!written) {
    // A 409 means another candidate wrote first: expected, not worth a log.
    if (!written.error().IsConflict() && !written.error().IsAlreadyExists()) {
      Report(written.error());
    }
    return false;
  }
  lease_object_ = std::move(*written);
  RememberWrite(decision.desired, steady_clock::now(), &memory_);
  return true;
}

void LeaderElector::Release() {
  // The token is canceled by now; this last write gets its own short
  // deadline instead.
  const SteadyTime deadline = steady_clock::now() + config_.timing.retry_period;
  auto read = client_.Get(config_.lease, Until(deadline, nullptr));
  if (!read) {
    Report(read.error());
    return;
  }
  const LeaseSpec held = LeaseSpecOf(*read);
  if (held.holder != config_.identity) return;
  nlohmann::json lease = std::move(*read);
  SetLeaseSpec(ReleasedSpec(held, system_clock::now()), &lease);
  if (auto ok = client_.Update(config_.lease, lease, Until(deadline, nullptr));
      !ok) {
    Report(ok.error());
  }
}

void LeaderElector::Run() {
  const ElectionTiming& timing = config_.timing;
  while (!cancel_.canceled()) {
    // Candidate: try until we hold the lease. A renewal counts from when it
    // was sent: the others may have seen it any time after that.
    SteadyTime last_renew = steady_clock::now();
    if (!TryAcquireOrRenew(last_renew + timing.renew_deadline)) {
      const auto pause = std::chrono::duration_cast<std::chrono::milliseconds>(
          timing.retry_period * (1.0 + 0.2 * random_()));
      cancel_.WaitFor(pause);
      continue;
    }
    SetLeading(true);
    // Leader: renew every retry period. Wake at the renew deadline at the
    // latest and stop leading there, or as soon as someone else holds the
    // lease.
    for (;;) {
      const SteadyTime deadline = last_renew + timing.renew_deadline;
      const auto until_deadline = deadline - steady_clock::now();
      if (!cancel_.WaitFor(std::min<steady_clock::duration>(timing.retry_period,
                                                            until_deadline))) {
        break;
      }
      const SteadyTime sent = steady_clock::now();
      if (RenewDeadlinePassed(last_renew, sent, timing)) break;
      if (TryAcquireOrRenew(deadline)) {
        last_renew = sent;
      } else if (memory_.observed &&
                 memory_.observed->holder != config_.identity) {
        break;
      }
    }
    if (cancel_.canceled() && config_.release_on_stop) Release();
    SetLeading(false);
  }
}

}  // namespace ax::kube
