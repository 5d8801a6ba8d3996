// OperatorService (operator_service.h): wiring and start/stop order. The
// loop is told about changes by the informers and about leadership by the
// elector; HTTP reads the metrics and the caches' sync state.
#include "operator_service.h"

#include <httplib.h>

#include "ax/kube/owner_references.h"
#include "ax/runtime/log.h"

namespace ax::controller {
namespace {

// The --owner object as owner references, read before anything is written:
// a wrong name, or a Role that may not read it, stops the start here rather
// than leave ConfigMaps and a Lease behind at uninstall.
bool ReadOwners(kube::Client& client, const OperatorConfig& c,
                nlohmann::json* owners, std::string* error) {
  *owners = nlohmann::json::array();
  if (c.owner_service_account.empty()) return true;
  auto owner = client.Get(kube::ServiceAccounts()
                              .In(c.namespace_name)
                              .Named(c.owner_service_account));
  if (!owner) {
    *error = "--owner=ServiceAccount/" + c.owner_service_account +
             ": cannot read it in namespace " + c.namespace_name + ": " +
             owner.error().ToString();
    return false;
  }
  owners->push_back(kube::OwnerReferenceTo(*owner));
  return true;
}

}  // namespace

OperatorService::OperatorService(OperatorConfig config)
    : config_(std::move(config)) {}

OperatorService::~OperatorService() { Stop(); }

bool OperatorService::Start(std::string* error) {
  auto loaded = kube::LoadConfig(config_.kubeconfig);
  if (!loaded) {
    *error = loaded.error().ToString();
    return false;
  }
  if (config_.namespace_name.empty()) {
    config_.namespace_name = loaded->default_namespace;
  }
  kube::ClientOptions client_options;
  client_options.user_agent = "ax-operator";
  auto client = kube::Client::Create(*loaded, client_options);
  if (!client) {
    *error = client.error().ToString();
    return false;
  }
  client_ = std::move(*client);
  nlohmann::json owners;
  if (!ReadOwners(*client_, config_, &owners, error)) return false;

  cache_ = std::make_unique<ClusterCache>(
      *client_, config_.namespace_name, config_.route_table,
      [this] {
        if (reconciler_) reconciler_->MarkDirty();
      },
      [](const std::string& resource, const kube::Error& e) {
        runtime::Log(runtime::LogLevel::kWarn, "watch failed",
                     {{"resource", resource}, {"error", e.ToString()}});
      });
  metrics_ = std::make_unique<OperatorMetrics>(
      config_.pod, [this] { return cache_->WatchRestarts(); });
  events_ = std::make_unique<kube::EventRecorder>(
      *client_, kube::EventSource{"ax-operator", config_.identity});
  applier_ = std::make_unique<PlanApplier>(
      *client_, *events_, [this] { return reconciler_->MayWrite(); }, owners);
  if (!config_.members.empty()) {
    MemberSetOptions members;
    members.namespace_name = config_.namespace_name;
    members.selector = config_.members;
    members.route_table = config_.route_table;
    members.link.sync = config_.member_sync;
    members.link.heartbeat = config_.member_heartbeat;
    members_ = std::make_unique<MemberSet>(*client_, *events_, members, [this] {
      if (reconciler_) reconciler_->MarkDirty();
    });
  }
  ReconcilerOptions options;
  options.plan.namespace_name = config_.namespace_name;
  options.plan.route_table_name = config_.route_table;
  options.plan.history_depth = config_.history;
  options.debounce = config_.debounce;
  options.resync = config_.resync;
  metric_reader_ = std::make_unique<signals::MetricReader>([this] {
    if (reconciler_) reconciler_->MarkDirty();
  });
  reconciler_ = std::make_unique<Reconciler>(
      *cache_, *applier_, *metrics_, std::move(options), metric_reader_.get(),
      members_.get());

  if (config_.leader_elect) {
    kube::LeaderElectionConfig election;
    election.lease =
        kube::Leases().In(config_.namespace_name).Named(config_.lease_name);
    election.identity = config_.identity;
    election.owner_references = owners;
    election.timing.lease_duration =
        std::chrono::duration_cast<std::chrono::seconds>(
            config_.lease_duration);
    election.timing.renew_deadline = config_.renew_deadline;
    election.timing.retry_period = config_.retry_period;
    election.on_started_leading = [this] { reconciler_->SetLeader(true); };
    election.on_stopped_leading = [this] { reconciler_->SetLeader(false); };
    election.on_error = [](const kube::Error& e) {
      runtime::Log(runtime::LogLevel::kWarn, "leader election",
                   {{"error", e.ToString()}});
    };
    auto elector = kube::LeaderElector::Create(*client_, std::move(election));
    if (!elector) {
      *error = elector.error().ToString();
      return false;
    }
    elector_ = std::move(*elector);
  }

  if (!config_.http_listen.empty()) {
    runtime::Endpoint at;
    if (!runtime::ParseEndpoint(config_.http_listen, &at, error)) return false;
    Route();
    if (!http_.Start(at, "http", error)) return false;
  }
  runtime::Log(runtime::LogLevel::kInfo, "ax-operator starting",
               {{"apiserver", loaded->server},
                {"config", loaded->source},
                {"namespace", config_.namespace_name},
                {"route_table", config_.route_table},
                {"owner", config_.owner_service_account},
                {"identity", config_.identity},
                {"leader_elect", config_.leader_elect},
                {"members", config_.members}});
  cache_->Start();
  if (members_) members_->Start();
  metric_reader_->Start();
  reconciler_->Start();
  if (elector_) {
    elector_->Start();
  } else {
    reconciler_->SetLeader(true);
  }
  return true;
}

void OperatorService::Stop() {
  // The loop first (no write after this), then the elector, which releases
  // the lease so a successor need not wait for it to expire.
  if (metric_reader_) metric_reader_->Stop();  // no more wake-ups
  if (reconciler_) reconciler_->Stop();
  if (elector_) elector_->Stop();
  if (members_) members_->Stop();
  if (cache_) cache_->Stop();
  http_.Stop();
}

void OperatorService::Route() {
  httplib::Server& server = http_.server();
  server.Get("/healthz", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("ok\n", "text/plain");
  });
  server.Get(
      "/readyz", [this](const httplib::Request&, httplib::Response& res) {
        if (Ready()) {
          res.set_content("ready\n", "text/plain");
          return;
        }
        res.status = 503;
        res.set_content("not ready: informers not synced\n", "text/plain");
      });
  http_.ServeMetrics([this] {
    std::vector<prometheus::MetricFamily> families = metrics_->Collect();
    if (members_) {
      for (auto& family : members_->Families()) {
        families.push_back(std::move(family));
      }
    }
    return families;
  });
}

}  // namespace ax::controller
