// Reconciler (reconciler.h): the wait loop, one pass (plan again at once when
// the route-table write lost a race), and what a pass tells metrics and logs.
#include "reconciler.h"

#include <algorithm>

#include "ax/controller/plan.h"
#include "ax/runtime/clock.h"
#include "ax/runtime/log.h"

namespace ax::controller {

Reconciler::Reconciler(ClusterCache& cache, PlanApplier& applier,
                       OperatorMetrics& metrics, ReconcilerOptions options,
                       signals::MetricReader* reader, MemberSet* members)
    : cache_(cache),
      applier_(applier),
      metrics_(metrics),
      reader_(reader),
      members_(members),
      options_(std::move(options)),
      backoff_(kube::BackoffPolicy{}, kube::OsSeededRandom()) {}

Reconciler::~Reconciler() { Stop(); }

void Reconciler::Start() {
  if (thread_.joinable()) return;
  thread_ = std::thread([this] { Run(); });
}

void Reconciler::Stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Reconciler::MarkDirty() {
  {
    std::lock_guard lock(mu_);
    dirty_ = true;
  }
  wake_.notify_all();
}

void Reconciler::SetLeader(bool leader) {
  leader_.store(leader, std::memory_order_release);
  metrics_.SetLeader(leader);
  runtime::Log(runtime::LogLevel::kInfo,
               leader ? "started leading" : "stopped leading", {});
  if (leader) {
    MarkDirty();
    return;
  }
  if (reader_) reader_->Want({});  // the next leader reads them
  if (members_) members_->Idle();  // the next leader publishes to them
}

void Reconciler::Run() {
  std::optional<Clock::time_point> due;  // requeue or retry
  Clock::time_point resync_at = Clock::now() + options_.resync;
  std::unique_lock lock(mu_);
  while (!stopping_) {
    const Clock::time_point wake_at =
        due ? std::min(*due, resync_at) : resync_at;
    wake_.wait_until(lock, wake_at, [this] { return stopping_ || dirty_; });
    if (stopping_) break;
    if (dirty_) {
      // Let a burst of events (kubectl apply -f DIR) settle into one pass.
      wake_.wait_for(lock, options_.debounce, [this] { return stopping_; });
      if (stopping_) break;
    }
    dirty_ = false;
    lock.unlock();
    const std::optional<Clock::duration> again = Pass();
    lock.lock();
    const Clock::time_point now = Clock::now();
    due = again ? std::optional(now + std::max<Clock::duration>(
                                          *again, options_.debounce))
                : std::nullopt;
    resync_at = now + options_.resync;
  }
}

std::optional<Reconciler::Clock::duration> Reconciler::Pass() {
  if (!MayWrite()) return std::nullopt;  // followers write nothing
  if (!cache_.Synced()) {
    // Each informer's first list marks us dirty again; still listing a
    // resync period after start means the API refuses or cannot be reached.
    if (Clock::now() - started_at_ > options_.resync) {
      metrics_.CountError(ReconcileStage::kGather);
    }
    return std::nullopt;
  }
  const Clock::time_point started = Clock::now();
  for (int attempt = 1;; ++attempt) {
    ObservedState observed =
        cache_.Gather(runtime::WallMs(), options_.plan, written_);
    if (reader_) observed.canary_readings = reader_->Readings();
    if (members_) members_->AddProbeReports(observed.probe_reports);
    const Plan plan = ComputePlan(observed);
    if (reader_ && MayWrite()) reader_->Want(plan.canary_queries);
    // Status writes give way to a newer plan once the world changed.
    const ApplyResult applied =
        applier_.Apply(plan, options_.plan.namespace_name, written_, [this] {
          std::lock_guard lock(mu_);
          return dirty_;
        });
    if (applied.stopped) return std::nullopt;
    if (applied.conflict && attempt < options_.attempts) continue;
    if (members_) {
      // What is in force now: the table this pass wrote, else the one read.
      members_->Offer(applied.published
                          ? *plan.route_table
                          : observed.route_table.value_or(nlohmann::json()),
                      observed.nodes);
    }
    Account(plan, observed, applied);
    metrics_.ObserveReconcile(
        std::chrono::duration<double>(Clock::now() - started).count());
    if (applied.failed) {
      runtime::Log(runtime::LogLevel::kWarn, "reconcile failed",
                   {{"stage", ReconcileStageName(*applied.failed)},
                    {"error", applied.error.ToString()},
                    {"attempts", attempt}});
      return backoff_.Next();
    }
    backoff_.Reset();
    // Gave way: the change that made the rest wait marked us dirty, and the
    // next pass writes them if they still differ.
    if (!plan.requeue_after_ms) return std::nullopt;
    return std::chrono::milliseconds(*plan.requeue_after_ms);
  }
}

void Reconciler::Account(const Plan& plan, const ObservedState& observed,
                         const ApplyResult& applied) {
  const PlanSummary& s = plan.summary;
  std::set<ReconcileStage> failed;
  // validate: objects the validator refused (left out); plan: the snapshot
  // refused (invalid, too large, build failed), the old one kept.
  if (!plan.invalid_objects.empty()) failed.insert(ReconcileStage::kValidate);
  if (s.outcome == PublishOutcome::kRejected) {
    failed.insert(ReconcileStage::kPlan);
  }
  if (applied.failed) failed.insert(*applied.failed);
  for (ReconcileStage stage : failed) metrics_.CountError(stage);
  metrics_.ObserveStatusBacklog(applied.unwritten.size());
  LogInvalid(plan);

  std::vector<std::string> canaries;
  for (const nlohmann::json& c : observed.canaries) {
    canaries.push_back(RefOf(c).name);
  }
  metrics_.ObserveCanaries(canaries);
  if (!applied.route_table_written) return;
  metrics_.ObservePlan(s, applied.published, runtime::WallMs() / 1000.0);
  for (const Event& e : plan.events) {
    if (e.reason == "CanaryFailed") metrics_.CountRollback(e.object.name);
  }
  if (applied.published) {
    runtime::Log(runtime::LogLevel::kInfo, "snapshot published",
                 {{"version", s.version},
                  {"outcome", PublishOutcomeName(s.outcome)},
                  {"bytes", s.snapshot_bytes},
                  {"stored_bytes", s.payload_bytes},
                  {"gzipped", s.gzipped},
                  {"routes", s.routes},
                  {"nodes_up", s.nodes_up},
                  {"nodes_down", s.nodes_down},
                  {"nodes_unknown", s.nodes_unknown}});
  }
}

void Reconciler::LogInvalid(const Plan& plan) {
  std::set<std::string> now;
  for (const auto& [object, errors] : plan.invalid_objects) {
    now.insert(object);
    if (invalid_logged_.count(object)) continue;  // said already
    for (const ManifestError& e : errors) {
      runtime::Log(
          runtime::LogLevel::kWarn, "object left out as invalid",
          {{"object", object}, {"field", e.field}, {"error", e.message}});
    }
  }
  invalid_logged_ = std::move(now);
}

}  // namespace ax::controller
