// Leader election decided as pure functions of the Lease as read, what this
// elector remembers and the clocks passed in, with client-go's semantics: a
// lease is expired when its record has not changed for leaseDurationSeconds
// by *our* monotonic clock (never by comparing the writer's renewTime with
// our wall clock), takeovers count leaseTransitions, a leader keeps its
// acquireTime. The I/O around it is leader_election.h's.
#pragma once

#include <chrono>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>

#include "ax/kube/result.h"

namespace ax::kube {

using SteadyTime = std::chrono::steady_clock::time_point;
using WallTime = std::chrono::system_clock::time_point;

// coordination.k8s.io/v1 Lease spec, the times as written (MicroTime text).
struct LeaseSpec {
  std::string holder;  // holderIdentity; "" when released
  int64_t lease_duration_s = 0;
  std::string acquire_time;
  std::string renew_time;
  int64_t transitions = 0;

  bool operator==(const LeaseSpec&) const = default;
};

// The spec of a Lease object; absent fields read as zero/empty.
LeaseSpec LeaseSpecOf(const nlohmann::json& lease);
// Sets `spec` in the Lease object (other spec fields are kept).
void SetLeaseSpec(const LeaseSpec& spec, nlohmann::json* lease);

struct ElectionTiming {
  // How long a lease holds without renewal; written to the Lease (whole
  // seconds, as the API stores it).
  std::chrono::seconds lease_duration{15};
  // A leader that has not renewed for this long stops leading.
  std::chrono::milliseconds renew_deadline{10000};
  // Pause between attempts (candidates add up to 20% jitter).
  std::chrono::milliseconds retry_period{2000};
};

// lease_duration > renew_deadline > 1.2 x retry_period > 0, as client-go
// demands: a leader gives up before anyone may take over.
Result<void> ValidateTiming(const ElectionTiming& timing);

// What one elector carries from one attempt to the next.
struct ElectorMemory {
  std::optional<LeaseSpec> observed;  // the record last read or written
  SteadyTime observed_at{};           // when it last changed, our clock
};

enum class LeaseAction {
  kCreate,  // no Lease: create it holding it
  kUpdate,  // write `desired` (take over or renew) with the read version
  kWait,    // someone else holds a lease that has not expired
};

struct LeaseDecision {
  LeaseAction action = LeaseAction::kWait;
  LeaseSpec desired;  // for kCreate and kUpdate
};

// One attempt to acquire or renew, given the Lease as read now (nullopt: it
// does not exist). Updates `memory` with what was observed.
LeaseDecision DecideLease(const std::optional<LeaseSpec>& current,
                          const std::string& identity,
                          const ElectionTiming& timing, SteadyTime now,
                          WallTime wall_now, ElectorMemory* memory);

// After `written` was stored: it is the record we last saw change.
void RememberWrite(const LeaseSpec& written, SteadyTime now,
                   ElectorMemory* memory);

// A leader whose last successful renewal was at `last_renew` must stop.
bool RenewDeadlinePassed(SteadyTime last_renew, SteadyTime now,
                         const ElectionTiming& timing);

// The record a leader writes when it steps down: no holder and a one-second
// duration, so the next candidate need not wait the full lease.
LeaseSpec ReleasedSpec(const LeaseSpec& held, WallTime wall_now);

}  // namespace ax::kube
