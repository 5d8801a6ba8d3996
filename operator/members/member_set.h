// The member clusters the operator publishes to: an informer on the Secrets of
// its namespace that match a label selector (member_secret.h), one MemberLink
// per Secret, replaced when the Secret changes (a rotation, new credentials)
// and stopped when it goes. The reconcile loop offers what members should
// hold after each pass while leading, and adds their ProbeReports to what it
// plans on; the metrics say, per member, whether it is up, blocked, which
// version it holds and how many reports it gave.
#pragma once

#include <prometheus/metric_family.h>

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ax/kube/client.h"
#include "ax/kube/event_recorder.h"
#include "ax/kube/informer.h"
#include "member_link.h"

namespace ax::controller {

struct MemberSetOptions {
  std::string namespace_name;  // the operator's: where the Secrets are
  std::string selector;        // label selector of the member Secrets
  std::string route_table;     // the ConfigMap's name, in every member
  MemberLinkOptions link;
};

class MemberSet {
 public:
  // `on_change`: the members' reports changed (any thread): plan again.
  // `events` records the Warning on a Secret whose credentials are refused.
  MemberSet(kube::Client& client, kube::EventRecorder& events,
            MemberSetOptions options, std::function<void()> on_change);
  ~MemberSet();  // Stop()
  MemberSet(const MemberSet&) = delete;
  MemberSet& operator=(const MemberSet&) = delete;

  void Start();
  void Stop();
  bool Synced() const { return secrets_->HasSynced(); }

  // While leading, after each pass: the control plane's current route-table
  // ConfigMap (null before the first publish) and its Nodes.
  void Offer(const nlohmann::json& route_table,
             const std::vector<nlohmann::json>& nodes);
  // Losing the lead: every link idles.
  void Idle();
  // Appends every member's last listed ProbeReports.
  void AddProbeReports(std::vector<nlohmann::json>& out) const;

  std::vector<MemberStatus> Statuses() const;
  // ax_operator_member_*, one series per member while leading.
  std::vector<prometheus::MetricFamily> Families() const;

 private:
  void SyncLinks();  // informer thread
  void Blocked(const MemberSpec& spec, std::string_view reason,
               const std::string& message);

  kube::Client& client_;
  kube::EventRecorder& events_;
  const MemberSetOptions options_;
  const std::function<void()> on_change_;
  std::unique_ptr<kube::Informer> secrets_;

  mutable std::mutex mu_;
  std::map<std::string, std::unique_ptr<MemberLink>> links_;  // by Secret
  // Secrets that cannot become a link (no or a broken kubeconfig), by name:
  // their resourceVersion (reported once per version) and status.
  std::map<std::string, std::pair<std::string, MemberStatus>> unusable_;
  MemberCopies copies_;  // null while not leading
  bool stopped_ = false;
  std::mutex events_mu_;
};

}  // namespace ax::controller
