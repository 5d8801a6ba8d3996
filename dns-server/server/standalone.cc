// StandaloneSource: DIR -> API objects -> the plan -> the store, and the
// plan's statuses, Events and invalid objects -> log lines and metrics. A
// verdict change is logged and pokes the watcher thread to plan again at once,
// as does a node's reported error rate moving or a Canary metric read from
// Prometheus (a Canary may be judged by them); so does the plan's requeue
// time, through the WakeTimer.
#include "server/standalone.h"

#include <algorithm>
#include <utility>

#include "ax/controller/measurement_hold.h"
#include "ax/gather.h"
#include "ax/runtime/clock.h"
#include "ax/runtime/log.h"
#include "engine/health_change_log.h"
#include "engine/world_targets.h"
#include "server/report_files.h"
#include "server/standalone_log.h"
#include "server/standalone_report.h"

namespace ax::dns {

StandaloneSource::StandaloneSource(std::filesystem::path dir,
                                   SnapshotStore* store,
                                   StandaloneOptions options)
    : dir_(std::move(dir)),
      store_(store),
      options_(std::move(options)),
      pipeline_(StandalonePlanOptions(options_.snapshot_history)) {}

bool StandaloneSource::Start(std::string* error) {
  wake_ = std::make_unique<WakeTimer>([this] { Poke(); });
  // Every reading plans again: a canary step may be waiting for one.
  metric_reader_ = std::make_unique<signals::MetricReader>([this] { Poke(); });
  metric_reader_->Start();
  if (options_.probe) {
    probe_metrics_ = std::make_unique<probe::ProbeMetrics>(options_.vantage);
    prober_ = std::make_unique<probe::ProbeEngine>(
        options_.probe_engine, [this](const probe::ProbeEvent& event) {
          probe_metrics_->Observe(event);
          const bool health_changed = probe::LogHealthChange(event);
          if (health_changed || ErrorRateMoved(event)) Poke();
        });
    probe_metrics_->SetEngine(prober_.get());
  }
  if (!options_.probe_reports_dir.empty()) ReadReports();
  const bool ok = Reconcile(true, error);
  std::string probe_error;
  if (prober_ && !prober_->Start(&probe_error)) {
    // Serving without verdicts beats not serving: nodes count Up.
    runtime::Log(runtime::LogLevel::kError,
                 "prober failed to start; nodes count Up",
                 {{"error", probe_error}});
    probe_metrics_->SetEngine(nullptr);
    prober_.reset();
  }
  // Last: from here on passes run on the watcher's thread, which reads
  // prober_. Pokes before it exists wait for it.
  std::lock_guard lock(watcher_mu_);
  watcher_ = std::make_unique<runtime::DirWatcher>(
      dir_, runtime::WatchOptions{options_.debounce, options_.rebuild_interval},
      [this](runtime::WatchEvent event) {
        std::string ignored;  // logged and recorded where it happened
        Reconcile(event == runtime::WatchEvent::kChanged, &ignored);
        passes_.fetch_add(1, std::memory_order_release);
      });
  if (std::exchange(poke_pending_, false)) watcher_->Poke();
  if (!options_.probe_reports_dir.empty()) {
    // Another vantage's new report plans again at once (as a verdict does).
    reports_watcher_ = std::make_unique<runtime::DirWatcher>(
        options_.probe_reports_dir,
        runtime::WatchOptions{options_.debounce, options_.rebuild_interval},
        [this](runtime::WatchEvent) {
          ReadReports();
          Poke();
        });
  }
  return ok;
}

void StandaloneSource::Stop() {
  if (prober_) prober_->Stop();                // no more pokes from verdicts
  reports_watcher_.reset();                    // nor from report files
  if (metric_reader_) metric_reader_->Stop();  // nor from metrics
  std::unique_ptr<runtime::DirWatcher> watcher;
  {
    std::lock_guard lock(watcher_mu_);
    watcher = std::move(watcher_);
  }
  watcher.reset();  // no more passes
  wake_.reset();
  if (probe_metrics_) probe_metrics_->SetEngine(nullptr);
  prober_.reset();
}

void StandaloneSource::Poke() {
  std::lock_guard lock(watcher_mu_);
  if (watcher_) {
    watcher_->Poke();
  } else {
    poke_pending_ = true;
  }
}

bool StandaloneSource::ErrorRateMoved(const probe::ProbeEvent& event) {
  if (!event.result.error_rate) return false;
  const double now = *event.result.error_rate;
  auto [it, first] = poked_error_rates_.try_emplace(event.node, now);
  const double before = it->second;
  // As the Node status tolerates it, so a rate that wobbles does not plan on
  // every probe (the plan's options are set once, before probing starts).
  if (!first &&
      controller::WithinTolerance(
          now, before, pipeline_.observed().options.measurement_tolerance,
          controller::kErrorRateFloor)) {
    return false;
  }
  it->second = now;
  return true;
}

void StandaloneSource::UpdateProbeTargets(const World& world) {
  if (!prober_) return;
  probe::WorldTargets targets =
      probe::ProbeTargetsForWorld(world, options_.token_dir);
  probe::LogTokenProblems(targets.token_problems);
  prober_->SetTargets(std::move(targets.targets));
}

void StandaloneSource::ReadManifests() {
  ManifestObjects read = ReadManifestObjects(dir_);
  file_errors_ = read.errors;
  for (const std::string& file : read.unreadable_files) {
    runtime::Log(runtime::LogLevel::kWarn,
                 "manifest file unreadable; keeping the objects last read "
                 "from it",
                 {{"dir", dir_.string()}, {"file", file}});
  }
  pipeline_.SetObjects(std::move(read));
  // The plan gathers the same objects again each pass; this is only for
  // what to probe and report, which changes with the objects alone.
  const GatheredWorld gathered = GatherWorld(pipeline_.observed());
  checked_nodes_ = CheckedNodes(gathered.world);
  UpdateProbeTargets(gathered.world);
}

void StandaloneSource::ReadReports() {
  ReportFiles read = ReadReportFiles(options_.probe_reports_dir);
  std::lock_guard lock(reports_mu_);
  if (read.errors != report_errors_) {
    for (const std::string& e : read.errors) {
      runtime::Log(runtime::LogLevel::kWarn,
                   "probe report file unusable; left out", {{"error", e}});
    }
    report_errors_ = std::move(read.errors);
  }
  file_reports_ = std::move(read.reports);
}

bool StandaloneSource::Reconcile(bool reread, std::string* error) {
  // An operator rolled back: keep that until the manifests change for good.
  if (!reread && store_->Status().rolled_back) return true;
  const int64_t now_ms =
      options_.wall_ms ? options_.wall_ms() : runtime::WallMs();
  if (reread) ReadManifests();
  std::vector<nlohmann::json> others;
  {
    std::lock_guard lock(reports_mu_);
    others = file_reports_;
  }
  const StandalonePass pass = pipeline_.Plan(
      metric_reader_->Readings(),
      StandaloneReport(
          checked_nodes_,
          prober_ ? prober_->Snapshot()
                  : std::map<std::string, probe::NodeProbeState>{},
          options_.vantage.empty() ? "standalone" : options_.vantage, now_ms),
      std::move(others), now_ms);
  const std::vector<ManifestError> errors = ManifestErrors(
      file_errors_, pass.plan.invalid_objects, pipeline_.sources());
  const std::string dir = dir_.string();
  // The objects change only when read: say what is wrong with them then.
  if (reread && !errors.empty()) {
    LogManifestErrors(dir, errors);
    store_->RecordError(ManifestErrorSummary(dir, errors));
  }
  bool ok = pass.valid_domains > 0;
  if (!ok) {
    *error = errors.empty() ? "no Domain in " + dir
                            : ManifestErrorSummary(dir, errors);
    if (reread) {
      if (errors.empty()) store_->RecordError(*error);
      runtime::Log(runtime::LogLevel::kWarn,
                   store_->Current() ? "no valid Domain in the manifests, "
                                       "serving the last good snapshot"
                                     : "no valid Domain in the manifests, "
                                       "nothing to serve yet",
                   {{"dir", dir}, {"errors", errors.size()}});
    }
  } else {
    if (reread && !errors.empty()) {
      runtime::Log(runtime::LogLevel::kWarn,
                   "manifest objects left out, serving the rest",
                   {{"dir", dir}, {"errors", errors.size()}});
    }
    ok = Apply(pass, error);
  }
  metrics_.Observe(pass.plan.invalid_objects.size(), file_errors_.size(),
                   pipeline_.observed());
  return ok;
}

bool StandaloneSource::Apply(const StandalonePass& pass, std::string* error) {
  const controller::Plan& plan = pass.plan;
  if (pass.unreadable ||
      plan.summary.outcome == controller::PublishOutcome::kRejected) {
    // The plan checked the snapshot it built: this is a bug, not the
    // manifests. Keep serving; the plan's Event says more.
    *error = pass.unreadable ? "the plan's route table does not decode: " +
                                   pass.unreadable->ToString()
                             : "the plan refused its snapshot";
    runtime::Log(runtime::LogLevel::kError, "standalone plan failed",
                 {{"dir", dir_.string()}, {"error", *error}});
    store_->RecordError(*error);
    LogEvents(plan.events);
    return false;
  }
  if (pass.snapshot &&
      store_->Load(pass.snapshot, "standalone:" + dir_.string(), error) ==
          LoadOutcome::kRejected) {
    return false;  // the store logged and recorded why
  }
  LogStatusChanges(pipeline_.Commit(plan));
  LogEvents(plan.events);
  metric_reader_->Want(plan.canary_queries);
  // Not sooner than a debounce: a due step is as well served a little late
  // as by a burst of passes.
  wake_->Set(plan.requeue_after_ms
                 ? std::optional(std::max<std::chrono::milliseconds>(
                       std::chrono::milliseconds(*plan.requeue_after_ms),
                       options_.debounce))
                 : std::nullopt);
  return true;
}

}  // namespace ax::dns
