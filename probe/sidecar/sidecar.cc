// Wiring and lifecycle of ProbeSidecar: start order engine -> API writer ->
// node source (manifests + watcher, or the API) -> report writer -> HTTP;
// stop runs the reverse. The writer thread sleeps until the next heartbeat or
// a poke (a verdict changed, the node set changed), then builds the report
// and asks ReportSchedule whether it is due; a due report goes to every
// destination.
#include "sidecar/sidecar.h"

#include <httplib.h>

#include <algorithm>
#include <chrono>
#include <utility>

#include "ax/manifest_loader.h"
#include "ax/runtime/clock.h"
#include "ax/runtime/log.h"
#include "engine/health_change_log.h"
#include "engine/world_targets.h"
#include "report/report_builder.h"
#include "sidecar/report_schedule.h"

namespace ax::probe {
namespace {

int64_t MonoMs() { return runtime::MonoUs() / 1000; }

// Indexes of ProbeSidecar::writes_.
constexpr int kOutput = 0, kApi = 1;
constexpr int kOk = 0, kError = 1;

}  // namespace

ProbeSidecar::ProbeSidecar(SidecarConfig config, uint64_t seed)
    : config_(std::move(config)),
      seed_(seed),
      metrics_(config_.vantage),
      output_(config_.report),
      served_(config_.served_from) {}

ProbeSidecar::~ProbeSidecar() { Stop(); }

bool ProbeSidecar::Start(std::string* error) {
  EngineConfig engine_config;
  engine_config.tls = {.ca_file = config_.probe_ca,
                       .insecure_skip_verify = config_.probe_insecure};
  engine_config.seed = seed_;
  engine_ = std::make_unique<ProbeEngine>(
      engine_config, [this](const ProbeEvent& e) { OnProbe(e); });
  metrics_.SetEngine(engine_.get());
  if (!engine_->Start(error)) {
    *error = "probe engine: " + *error;
    return false;
  }
  if (config_.report_api) {
    api_ = ApiReportWriter::Create(
        ApiReportOptions{.kubeconfig = config_.kubeconfig,
                         .namespace_name = config_.namespace_name,
                         .pod_name = config_.pod_name,
                         .pod_uid = config_.pod_uid},
        error);
    if (!api_) return false;
    runtime::Log(runtime::LogLevel::kInfo,
                 "reports go through the Kubernetes API",
                 {{"namespace", api_->namespace_name()},
                  {"owner_pod", config_.pod_name}});
  }
  if (config_.nodes_api) {
    api_nodes_ = ApiNodeSource::Create(
        ApiNodesOptions{.kubeconfig = config_.kubeconfig,
                        .namespace_name = config_.namespace_name,
                        .configmap = config_.nodes_configmap,
                        .debounce = config_.reload_debounce},
        [this](const GatheredWorld& nodes) {
          Probe(nodes.world, "api:" + api_nodes_->namespace_name());
        },
        error);
    if (!api_nodes_) return false;
    api_nodes_->Start();
  } else {
    Reload();
    watcher_ = std::make_unique<runtime::DirWatcher>(
        config_.manifests_dir,
        runtime::WatchOptions{config_.reload_debounce, {}},
        [this](runtime::WatchEvent event) {
          if (event == runtime::WatchEvent::kChanged) Reload();
        });
  }
  // Without an output the loop would have nothing to wait for.
  if (output_.enabled() || api_) {
    reporter_ = std::thread([this] { ReportLoop(); });
  }
  if (!config_.http_listen.empty()) {
    runtime::Endpoint at;
    if (!runtime::ParseEndpoint(config_.http_listen, &at, error)) return false;
    Route();
    if (!http_.Start(at, "http", error)) return false;
  }
  return true;
}

void ProbeSidecar::Stop() {
  http_.Stop();
  watcher_.reset();  // no more reloads
  if (api_nodes_) api_nodes_->Stop();
  if (engine_) engine_->Stop();  // no more sink calls
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (reporter_.joinable()) reporter_.join();
  metrics_.SetEngine(nullptr);
  engine_.reset();
}

void ProbeSidecar::Reload() {
  const ManifestLoadResult loaded = LoadManifestDir(config_.manifests_dir);
  if (!loaded.ok()) {
    for (const ManifestError& e : loaded.errors) {
      runtime::Log(runtime::LogLevel::kError, "manifest error",
                   {{"dir", config_.manifests_dir},
                    {"source", e.source},
                    {"object", e.object},
                    {"field", e.field},
                    {"error", e.message}});
    }
    runtime::Log(
        runtime::LogLevel::kWarn,
        "manifests broken, probing the last good node set",
        {{"dir", config_.manifests_dir}, {"errors", loaded.errors.size()}});
    return;
  }
  Probe(loaded.world, "dir:" + config_.manifests_dir);
}

void ProbeSidecar::Probe(const World& world, const std::string& source) {
  WorldTargets targets = ProbeTargetsForWorld(world, config_.probe_token_dir);
  LogTokenProblems(targets.token_problems);
  std::vector<std::string> nodes;
  for (const ProbeTarget& t : targets.targets) nodes.push_back(t.node);
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  runtime::Log(runtime::LogLevel::kInfo, "node set loaded",
               {{"source", source}, {"probed_nodes", nodes.size()}});
  engine_->SetTargets(std::move(targets.targets));
  {
    std::lock_guard lock(mu_);
    nodes_ = std::move(nodes);
    loaded_ = true;
    poked_ = true;
  }
  wake_.notify_all();
}

void ProbeSidecar::OnProbe(const ProbeEvent& e) {
  metrics_.Observe(e);
  if (LogHealthChange(e)) Poke();
}

void ProbeSidecar::Poke() {
  {
    std::lock_guard lock(mu_);
    poked_ = true;
  }
  wake_.notify_all();
}

bool ProbeSidecar::Ready() const {
  if (ready_.load()) return true;
  std::vector<std::string> nodes;
  {
    std::lock_guard lock(mu_);
    if (!loaded_ || !engine_) return false;
    nodes = nodes_;
  }
  if (FirstRoundDone(nodes, engine_->Snapshot())) ready_.store(true);
  return ready_.load();
}

void ProbeSidecar::ReportLoop() {
  ReportSchedule schedule(config_.heartbeat.count());
  std::unique_lock lock(mu_);
  while (!stopping_) {
    const std::optional<int64_t> next = schedule.NextHeartbeatMs();
    const auto due_in = std::chrono::milliseconds(
        next ? std::max<int64_t>(0, *next - MonoMs()) : 0);
    // Nothing to say before a node set loaded: an empty report would claim
    // this vantage probes nothing.
    wake_.wait_for(
        lock,
        loaded_ ? due_in : std::chrono::milliseconds(std::chrono::hours(1)),
        [this] { return stopping_ || poked_; });
    if (stopping_) break;
    poked_ = false;
    if (!loaded_) continue;
    const std::vector<std::string> nodes = nodes_;
    lock.unlock();

    ProbeReport report = BuildReport(nodes, engine_->Snapshot(),
                                     config_.vantage, runtime::WallMs());
    report.identity = config_.identity;
    HealthKey key = HealthKeyOf(report);
    const int64_t now = MonoMs();
    if (schedule.Due(key, now)) {
      report.served = served_.Read();
      Deliver(report);
      schedule.Written(std::move(key), now);
    }
    lock.lock();
  }
}

void ProbeSidecar::Deliver(const ProbeReport& report) {
  std::string error;
  if (output_.enabled()) {
    const bool ok = output_.Write(SerializeProbeReport(report), &error);
    ++writes_[kOutput][ok ? kOk : kError];
    if (!ok)
      runtime::Log(runtime::LogLevel::kError, "report write failed",
                   {{"error", error}});
  }
  // After the local output: a slow or refusing apiserver delays only this.
  if (api_) {
    const bool ok = api_->Write(report, &error);
    ++writes_[kApi][ok ? kOk : kError];
    if (!ok) {
      runtime::Log(runtime::LogLevel::kError,
                   "report API write failed; next change or heartbeat retries",
                   {{"error", error}});
    }
  }
}

prometheus::MetricFamily ProbeSidecar::WritesFamily() const {
  prometheus::MetricFamily family{
      "ax_probe_report_writes_total",
      "ProbeReport writes by destination (output: --report, api: "
      "--report-api) and result",
      prometheus::MetricType::Counter,
      {}};
  for (const auto& [destination, d] :
       {std::pair{"output", kOutput}, std::pair{"api", kApi}}) {
    for (const auto& [result, r] :
         {std::pair{"ok", kOk}, std::pair{"error", kError}}) {
      prometheus::ClientMetric m;
      m.label = {{"destination", destination}, {"result", result}};
      m.counter.value = static_cast<double>(writes_[d][r].load());
      family.metric.push_back(std::move(m));
    }
  }
  return family;
}

void ProbeSidecar::Route() {
  httplib::Server& server = http_.server();
  server.Get("/healthz", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("ok\n", "text/plain");
  });
  server.Get("/readyz",
             [this](const httplib::Request&, httplib::Response& res) {
               if (Ready()) {
                 res.set_content("ready\n", "text/plain");
                 return;
               }
               res.status = 503;
               res.set_content(
                   "not ready: waiting for the node set and a first verdict "
                   "for every node\n",
                   "text/plain");
             });
  http_.ServeMetrics([this] {
    auto families = metrics_.Collect();
    families.push_back(WritesFamily());
    if (api_nodes_) {
      for (auto& family : api_nodes_->Families()) {
        families.push_back(std::move(family));
      }
    }
    return families;
  });
}

}  // namespace ax::probe
