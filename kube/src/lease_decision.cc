// Pure leader-election decisions (lease_decision.h), following client-go's
// tryAcquireOrRenew.
#include "ax/kube/lease_decision.h"

#include <nlohmann/json.hpp>

#include "ax/kube/kube_time.h"
#include "json_util.h"

namespace ax::kube {
namespace {

int64_t IntField(const nlohmann::json& obj, const char* key) {
  if (!obj.is_object()) return 0;
  const auto it = obj.find(key);
  return it != obj.end() && it->is_number_integer() ? it->get<int64_t>() : 0;
}

}  // namespace

LeaseSpec LeaseSpecOf(const nlohmann::json& lease) {
  const nlohmann::json* spec = ObjectField(lease, "spec");
  if (spec == nullptr) return {};
  return LeaseSpec{StringField(*spec, "holderIdentity"),
                   IntField(*spec, "leaseDurationSeconds"),
                   StringField(*spec, "acquireTime"),
                   StringField(*spec, "renewTime"),
                   IntField(*spec, "leaseTransitions")};
}

void SetLeaseSpec(const LeaseSpec& spec, nlohmann::json* lease) {
  nlohmann::json& out = (*lease)["spec"];
  if (!out.is_object()) out = nlohmann::json::object();
  out["holderIdentity"] = spec.holder;
  out["leaseDurationSeconds"] = spec.lease_duration_s;
  out["leaseTransitions"] = spec.transitions;
  for (const auto& [key, value] : {std::pair{"acquireTime", &spec.acquire_time},
                                   std::pair{"renewTime", &spec.renew_time}}) {
    if (value->empty()) {
      out.erase(key);
    } else {
      out[key] = *value;
    }
  }
}

Result<void> ValidateTiming(const ElectionTiming& timing) {
  const auto fail = [](const char* why) {
    return Error{0, std::string(kReasonInvalidConfig),
                 std::string("leader election timing: ") + why};
  };
  if (timing.retry_period.count() <= 0) return fail("retryPeriod must be > 0");
  if (timing.renew_deadline <= timing.retry_period * 12 / 10) {
    return fail("renewDeadline must exceed 1.2 x retryPeriod");
  }
  if (timing.lease_duration <= timing.renew_deadline) {
    return fail("leaseDuration must exceed renewDeadline");
  }
  return {};
}

LeaseDecision DecideLease(const std::optional<LeaseSpec>& current,
                          const std::string& identity,
                          const ElectionTiming& timing, SteadyTime now,
                          WallTime wall_now, ElectorMemory* memory) {
  const std::string stamp = FormatMicroTime(wall_now);
  LeaseDecision decision;
  decision.desired.holder = identity;
  decision.desired.lease_duration_s = timing.lease_duration.count();
  decision.desired.renew_time = stamp;
  if (!current) {
    decision.action = LeaseAction::kCreate;
    decision.desired.acquire_time = stamp;
    return decision;
  }
  if (!memory->observed || *memory->observed != *current) {
    memory->observed = *current;
    memory->observed_at = now;
  }
  // Expiry runs from when *we* saw the record change, for the duration the
  // holder wrote: clocks of different machines are never compared.
  const bool held_by_other =
      !current->holder.empty() && current->holder != identity;
  if (held_by_other &&
      memory->observed_at + std::chrono::seconds(current->lease_duration_s) >
          now) {
    decision.action = LeaseAction::kWait;
    return decision;
  }
  decision.action = LeaseAction::kUpdate;
  if (current->holder == identity) {
    decision.desired.acquire_time = current->acquire_time;
    decision.desired.transitions = current->transitions;
  } else {
    decision.desired.acquire_time = stamp;
    decision.desired.transitions = current->transitions + 1;
  }
  return decision;
}

void RememberWrite(const LeaseSpec& written, SteadyTime now,
                   ElectorMemory* memory) {
  memory->observed = written;
  memory->observed_at = now;
}

bool RenewDeadlinePassed(SteadyTime last_renew, SteadyTime now,
                         const ElectionTiming& timing) {
  return now - last_renew >= timing.renew_deadline;
}

LeaseSpec ReleasedSpec(const LeaseSpec& held, WallTime wall_now) {
  const std::string stamp = FormatMicroTime(wall_now);
  return LeaseSpec{"", 1, stamp, stamp, held.transitions};
}

}  // namespace ax::kube
