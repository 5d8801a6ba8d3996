// OperatorMetrics (operator_metrics.h): plain numbers under one mutex, turned
// into MetricFamily values when scraped.
#include "operator_metrics.h"

#include <algorithm>
#include <limits>

#include "ax/runtime/metric_family.h"

namespace ax::controller {
namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;
using Labels = runtime::MetricLabels;
using runtime::Family;

constexpr std::array<ReconcileStage, 5> kStages = {
    ReconcileStage::kGather, ReconcileStage::kValidate, ReconcileStage::kPlan,
    ReconcileStage::kPublish, ReconcileStage::kStatus};

}  // namespace

const char* ReconcileStageName(ReconcileStage stage) {
  switch (stage) {
    case ReconcileStage::kGather:
      return "gather";
    case ReconcileStage::kValidate:
      return "validate";
    case ReconcileStage::kPlan:
      return "plan";
    case ReconcileStage::kPublish:
      return "publish";
    case ReconcileStage::kStatus:
      break;
  }
  return "status";
}

OperatorMetrics::OperatorMetrics(std::string pod, WatchRestarts watch_restarts)
    : pod_(std::move(pod)), watch_restarts_(std::move(watch_restarts)) {}

void OperatorMetrics::SetLeader(bool leader) {
  std::lock_guard lock(mu_);
  leader_ = leader;
  // A follower has no current state: the leader-only series go.
  if (!leader) summary_.reset();
}

void OperatorMetrics::ObserveReconcile(double seconds) {
  const auto bucket =
      std::lower_bound(kReconcileDurationBounds.begin(),
                       kReconcileDurationBounds.end(), seconds) -
      kReconcileDurationBounds.begin();
  std::lock_guard lock(mu_);
  ++buckets_[static_cast<size_t>(bucket)];
  ++reconciles_;
  reconcile_seconds_ += seconds;
}

void OperatorMetrics::ObserveStatusBacklog(size_t statuses) {
  std::lock_guard lock(mu_);
  status_backlog_ = statuses;
}

void OperatorMetrics::CountError(ReconcileStage stage) {
  std::lock_guard lock(mu_);
  ++errors_[static_cast<size_t>(stage)];
}

void OperatorMetrics::ObservePlan(const PlanSummary& summary,
                                  bool published_now, double now_seconds) {
  std::lock_guard lock(mu_);
  if (!leader_) return;
  // A new leader has not published yet: the ConfigMap's version is the one
  // in force, published before it led (its time unknown until it publishes).
  if (published_now) published_at_s_ = now_seconds;
  summary_ = summary;
}

void OperatorMetrics::ObserveCanaries(const std::vector<std::string>& names) {
  std::lock_guard lock(mu_);
  for (const std::string& name : names) rollbacks_.try_emplace(name, 0);
}

void OperatorMetrics::CountRollback(const std::string& canary) {
  std::lock_guard lock(mu_);
  ++rollbacks_[canary];
}

std::vector<MetricFamily> OperatorMetrics::Collect() const {
  const std::map<std::string, uint64_t> restarts =
      watch_restarts_ ? watch_restarts_() : std::map<std::string, uint64_t>{};
  std::lock_guard lock(mu_);
  std::vector<MetricFamily> out;

  auto leader = Family("ax_operator_leader",
                       "1 while this replica holds the leader lease, else 0",
                       MetricType::Gauge);
  runtime::AddSample(leader, leader_ ? 1 : 0, {{"pod", pod_}});
  out.push_back(std::move(leader));

  auto errors = Family("ax_operator_reconcile_errors_total",
                       "reconcile passes that failed, by the stage that failed",
                       MetricType::Counter);
  for (ReconcileStage stage : kStages) {
    runtime::AddSample(errors,
                       static_cast<double>(errors_[static_cast<size_t>(stage)]),
                       {{"stage", ReconcileStageName(stage)}});
  }
  out.push_back(std::move(errors));

  auto watches = Family("ax_operator_watch_restarts_total",
                        "watches re-established after they closed, expired or "
                        "failed (the first watch of each resource not counted)",
                        MetricType::Counter);
  for (const auto& [resource, n] : restarts) {
    runtime::AddSample(watches, static_cast<double>(n),
                       {{"resource", resource}});
  }
  out.push_back(std::move(watches));

  auto rollbacks =
      Family("ax_operator_canary_rollbacks_total",
             "times the Canary's analysis rolled it back", MetricType::Counter);
  for (const auto& [canary, n] : rollbacks_) {
    runtime::AddSample(rollbacks, static_cast<double>(n), {{"canary", canary}});
  }
  out.push_back(std::move(rollbacks));

  if (leader_) {
    auto duration = Family("ax_operator_reconcile_duration_seconds",
                           "one reconcile pass, gather to status written",
                           MetricType::Histogram);
    ClientMetric m;
    uint64_t cumulative = 0;
    for (size_t b = 0; b < buckets_.size(); ++b) {
      cumulative += buckets_[b];
      m.histogram.bucket.push_back(
          {cumulative, b < kReconcileDurationBounds.size()
                           ? kReconcileDurationBounds[b]
                           : std::numeric_limits<double>::infinity()});
    }
    m.histogram.sample_count = reconciles_;
    m.histogram.sample_sum = reconcile_seconds_;
    duration.metric.push_back(std::move(m));
    out.push_back(std::move(duration));
    auto backlog = Family("ax_operator_status_backlog",
                          "statuses the last pass planned but left to the "
                          "next (its writes gave way to a newer plan)",
                          MetricType::Gauge);
    runtime::AddSample(backlog, static_cast<double>(status_backlog_));
    out.push_back(std::move(backlog));
  }

  if (leader_ && summary_) {
    const PlanSummary& s = *summary_;
    if (s.version > 0) {
      auto version =
          Family("ax_operator_snapshot_version",
                 "version of the last snapshot published", MetricType::Gauge);
      runtime::AddSample(version, static_cast<double>(s.version));
      out.push_back(std::move(version));
      auto bytes = Family("ax_operator_snapshot_bytes",
                          "size of that snapshot's JSON document, in bytes",
                          MetricType::Gauge);
      runtime::AddSample(bytes, static_cast<double>(s.snapshot_bytes));
      out.push_back(std::move(bytes));
    }
    if (published_at_s_ > 0) {
      auto at =
          Family("ax_operator_snapshot_published_timestamp_seconds",
                 "Unix time that snapshot was published", MetricType::Gauge);
      runtime::AddSample(at, published_at_s_);
      out.push_back(std::move(at));
    }
    auto nodes =
        Family("ax_operator_nodes", "Nodes by the health the quorum gave them",
               MetricType::Gauge);
    runtime::AddSample(nodes, static_cast<double>(s.nodes_up),
                       {{"health", "Up"}});
    runtime::AddSample(nodes, static_cast<double>(s.nodes_down),
                       {{"health", "Down"}});
    runtime::AddSample(nodes, static_cast<double>(s.nodes_unknown),
                       {{"health", "Unknown"}});
    out.push_back(std::move(nodes));
    auto regions = Family("ax_operator_region_healthy_nodes",
                          "per Region that lists nodes: how many are Up and "
                          "not drained or disabled",
                          MetricType::Gauge);
    for (const auto& [region, n] : s.region_healthy_nodes) {
      runtime::AddSample(regions, static_cast<double>(n), {{"region", region}});
    }
    out.push_back(std::move(regions));
    auto vantages = Family("ax_operator_vantage_cut_off",
                           "1 while the quorum discounts the vantage as cut "
                           "off, else 0",
                           MetricType::Gauge);
    for (const auto& [vantage, cut] : s.vantage_cut_off) {
      runtime::AddSample(vantages, cut ? 1 : 0, {{"vantage", vantage}});
    }
    out.push_back(std::move(vantages));
    auto future = Family("ax_operator_probe_reports_future",
                         "ProbeReports ignored because observedAt lies more "
                         "than the quorum's max future skew ahead",
                         MetricType::Gauge);
    runtime::AddSample(future, static_cast<double>(s.future_reports));
    out.push_back(std::move(future));
    auto canary_percent =
        Family("ax_operator_canary_percent",
               "per Canary: the share of its clients on its node as the last "
               "plan decided it",
               MetricType::Gauge);
    auto canary_phase = Family(
        "ax_operator_canary_phase",
        "per Canary: 1 for the phase it is in (Pending, Progressing, Paused, "
        "Succeeded, Failed)",
        MetricType::Gauge);
    for (const auto& [canary, view] : s.canaries) {
      runtime::AddSample(canary_percent, view.percent, {{"canary", canary}});
      runtime::AddSample(canary_phase, 1,
                         {{"canary", canary}, {"phase", view.phase}});
    }
    out.push_back(std::move(canary_percent));
    out.push_back(std::move(canary_phase));
    auto load = Family("ax_operator_node_load_percent",
                       "per Node whose load is known: load over capacity, in "
                       "percent (the highest over its declared capacities)",
                       MetricType::Gauge);
    for (const auto& [node, percent] : s.node_load_percent) {
      runtime::AddSample(load, percent, {{"node", node}});
    }
    out.push_back(std::move(load));
    auto rule_active =
        Family("ax_operator_rule_active",
               "per Rule: 1 while it applies (not expired), 0 once expired",
               MetricType::Gauge);
    auto rule_expires =
        Family("ax_operator_rule_expires_timestamp_seconds",
               "per Rule with an expiresAt: that time, Unix seconds",
               MetricType::Gauge);
    for (const auto& [rule, view] : s.rules) {
      const runtime::MetricLabels labels = {{"rule", rule},
                                            {"domain", view.domain},
                                            {"action", view.action},
                                            {"node", view.node}};
      runtime::AddSample(rule_active, view.active ? 1 : 0, labels);
      if (view.expires_at > 0) {
        runtime::AddSample(rule_expires, static_cast<double>(view.expires_at),
                           labels);
      }
    }
    out.push_back(std::move(rule_active));
    out.push_back(std::move(rule_expires));
    auto groups = Family("ax_operator_vantage_group_vantages",
                         "per vantage group: its fresh, trusted vantages (0: "
                         "its Regions use the global verdicts)",
                         MetricType::Gauge);
    for (const auto& [group, n] : s.group_vantages) {
      runtime::AddSample(groups, static_cast<double>(n), {{"group", group}});
    }
    out.push_back(std::move(groups));
    auto group_down =
        Family("ax_operator_vantage_group_node_down",
               "1 per node a vantage group sees Down, labelled with the "
               "node's global health",
               MetricType::Gauge);
    for (const auto& [key, global] : s.group_down) {
      runtime::AddSample(group_down, 1,
                         {{"group", key.first},
                          {"node", key.second},
                          {"global", HealthName(global)}});
    }
    out.push_back(std::move(group_down));
  }
  std::sort(out.begin(), out.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });
  return out;
}

}  // namespace ax::controller
