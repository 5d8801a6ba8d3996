// ax-operator as one object: the API client, the informers, the member
// clusters, the leader elector, the reconcile loop, the metrics and the HTTP
// endpoint (/metrics,
// /healthz, /readyz), started and stopped in order. main() builds it from the
// config; deciding anything is the plan's (plan/).
#pragma once

#include <memory>
#include <string>

#include "ax/kube/client.h"
#include "ax/kube/event_recorder.h"
#include "ax/kube/leader_election.h"
#include "ax/runtime/http_listener.h"
#include "cluster_cache.h"
#include "config.h"
#include "member_set.h"
#include "operator_metrics.h"
#include "plan_applier.h"
#include "reconciler.h"

namespace ax::controller {

class OperatorService {
 public:
  explicit OperatorService(OperatorConfig config);
  ~OperatorService();  // Stop()
  OperatorService(const OperatorService&) = delete;
  OperatorService& operator=(const OperatorService&) = delete;

  // Reads the kubeconfig or in-cluster config and the --owner object, binds
  // HTTP, starts the informers, the loop and the election. Fails on bad
  // config, TLS material or lease timing, an --owner that cannot be read,
  // or a bind failure; otherwise an unreachable apiserver is not fatal (the
  // informers keep trying).
  bool Start(std::string* error);
  // Stops the loop, releases the lease (when leading), stops the informers
  // and HTTP.
  void Stop();

  // /readyz: every informer has listed once.
  bool Ready() const {
    return cache_ && cache_->Synced() && (!members_ || members_->Synced());
  }

 private:
  void Route();

  OperatorConfig config_;
  std::unique_ptr<kube::Client> client_;
  std::unique_ptr<ClusterCache> cache_;
  std::unique_ptr<OperatorMetrics> metrics_;
  std::unique_ptr<kube::EventRecorder> events_;
  std::unique_ptr<PlanApplier> applier_;
  std::unique_ptr<MemberSet> members_;  // null without --members
  std::unique_ptr<signals::MetricReader>
      metric_reader_;  // the Reconciler reads it
  std::unique_ptr<Reconciler> reconciler_;
  std::unique_ptr<kube::LeaderElector> elector_;
  runtime::HttpListener http_;
};

}  // namespace ax::controller
