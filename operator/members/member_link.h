// One member cluster, from the control plane's side: a thread that, while this
// operator leads (it has copies to hold), writes the member's copies
// (member_copies.h) when they change and stamps the route table's
// confirmation every heartbeat, then lists the member's ProbeReports so that
// its probe agents count as vantages. An unreachable member is retried with
// backoff and logged when it starts and stops failing; credentials the member
// refuses (401, 403) or cannot be used are reported once and not retried:
// the link waits for its Secret to change (member_set.h replaces it).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "ax/kube/backoff.h"
#include "ax/kube/cancel.h"
#include "ax/kube/client.h"
#include "member_secret.h"

namespace ax::controller {

struct MemberLinkOptions {
  // How often the ProbeReports are listed and the copies checked.
  std::chrono::milliseconds sync{10'000};
  // How often the route-table copy's confirmation is refreshed.
  std::chrono::milliseconds heartbeat{30'000};
  std::chrono::milliseconds request_timeout{10'000};
  kube::BackoffPolicy backoff;
};

enum class MemberHealth {
  kIdle,         // not leading: nothing to hold
  kSyncing,      // before the first sync ended
  kUp,           // the last sync went through
  kUnreachable,  // the last sync failed; retried with backoff
  kBlocked,      // credentials refused or unusable: waits for the Secret
};
const char* MemberHealthName(MemberHealth health);

struct MemberStatus {
  std::string name;
  MemberHealth health = MemberHealth::kIdle;
  std::string error;     // the last failure
  uint64_t version = 0;  // the route-table version the member holds
  size_t probe_reports = 0;
  uint64_t failures = 0;        // failed syncs
  int64_t confirmed_at_ms = 0;  // the last confirmation written (wall)
};

// The copies every member should hold (member_copies.h), shared by links.
using MemberCopies = std::shared_ptr<const std::vector<nlohmann::json>>;

class MemberLink {
 public:
  // The listed ProbeReports changed (link thread): plan again.
  using OnReports = std::function<void()>;
  // Credentials refused or unusable: `reason` (MemberForbidden,
  // MemberUnauthorized, MemberConfigInvalid) and a message naming the
  // member. Once per link (link thread).
  using OnBlocked = std::function<void(
      const MemberSpec&, std::string_view reason, const std::string& message)>;
  // Wall clock, unix milliseconds (the confirmation's time).
  using WallClock = std::function<int64_t()>;

  MemberLink(MemberSpec spec, MemberLinkOptions options, kube::Random random,
             OnReports on_reports, OnBlocked on_blocked, WallClock wall);
  ~MemberLink();  // Stop()
  MemberLink(const MemberLink&) = delete;
  MemberLink& operator=(const MemberLink&) = delete;

  void Start();
  // Prompt: cancels a request in flight.
  void Stop();

  // What to hold; null while not leading (the link idles).
  void Offer(MemberCopies copies);
  // The member's ProbeReports as last listed (kept while unreachable: the
  // quorum's max age retires them), each annotated kMemberAnnotation.
  std::vector<nlohmann::json> ProbeReports() const;
  MemberStatus Status() const;
  const MemberSpec& spec() const { return spec_; }

 private:
  void Run();
  // One sync; false on failure (status and logs updated).
  // Stops early, as a success, once `copies` is no longer what is offered.
  bool Sync(const MemberCopies& copies);
  kube::Result<void> Hold(const nlohmann::json& copy);
  kube::Result<void> ListReports();
  void Failed(const kube::Error& error);
  void Block(std::string_view reason, const std::string& message);

  const MemberSpec spec_;
  const MemberLinkOptions options_;
  const OnReports on_reports_;
  const OnBlocked on_blocked_;
  const WallClock wall_;
  kube::Backoff backoff_;
  std::unique_ptr<kube::Client> client_;  // null when unusable (blocked)
  kube::CancelToken cancel_;
  std::thread thread_;

  mutable std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;
  bool offered_ = false;  // new copies since the last sync
  MemberCopies copies_;
  MemberStatus status_;
  std::vector<nlohmann::json> reports_;

  // Link thread only: what was last written per ConfigMap name, and when
  // the route table's confirmation is due again.
  std::map<std::string, nlohmann::json> written_;
  std::chrono::steady_clock::time_point confirm_due_{};
  std::map<std::string, std::string> report_versions_;  // name -> rv
};

}  // namespace ax::controller
