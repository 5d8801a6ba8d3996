// ApiNodeSource (api_nodes.h): informer -> debounce -> GatherWorld -> the
// sidecar. The kind is set on every object because list items may come
// without one, and the parser checks it.
#include "sidecar/api_nodes.h"

#include <utility>

#include "ax/api_kinds.h"
#include "ax/kube/resource.h"
#include "ax/kube_runtime/kube_connect.h"
#include "ax/probe_targets.h"
#include "ax/runtime/log.h"

namespace ax::probe {
namespace {

using nlohmann::json;

kube::Resource Nodes() {
  return {kApiGroup, kApiGroupVersion, std::string(ApiPlural("Node"))};
}

}  // namespace

std::unique_ptr<ApiNodeSource> ApiNodeSource::Create(
    const ApiNodesOptions& options, OnNodes on_nodes, std::string* error) {
  // A client of its own: the report writer's short request timeout would cut
  // a watch that is quiet for minutes.
  kube::ClientOptions client_options;
  client_options.user_agent = "ax-probe";
  kube::KubeConnection connection =
      kube::ConnectKube(options.kubeconfig, client_options, error);
  if (!connection.client) return nullptr;
  std::string ns = options.namespace_name.empty() ? connection.default_namespace
                                                  : options.namespace_name;
  kube::Resource collection = Nodes().In(ns);
  kube::ListWatchOptions selection;
  if (!options.configmap.empty()) {
    collection = kube::ConfigMaps().In(ns);
    selection.field_selector = "metadata.name=" + options.configmap;
  }
  auto source = std::make_unique<ApiNodeSource>(
      kube::NewListerWatcher(*connection.client, collection, selection), ns,
      options.debounce, std::move(on_nodes), kube::ReflectorOptions{},
      options.configmap);
  runtime::Log(runtime::LogLevel::kInfo, "node source: Kubernetes API",
               {{"namespace", ns},
                {"configmap", options.configmap},
                {"config", connection.config_source}});
  source->client_ = std::move(connection.client);
  return source;
}

ApiNodeSource::ApiNodeSource(
    std::unique_ptr<kube::ListerWatcher> lister_watcher,
    std::string namespace_name, std::chrono::milliseconds debounce,
    OnNodes on_nodes, kube::ReflectorOptions reflector, std::string configmap)
    : namespace_(std::move(namespace_name)),
      configmap_(std::move(configmap)),
      debounce_(debounce),
      on_nodes_(std::move(on_nodes)) {
  watch_ = std::make_unique<kube::ApiWatch>(
      std::move(lister_watcher),
      kube::ApiWatchLabels{.name = "node source",
                           .keeping = "probing the last node set",
                           .key = "namespace",
                           .value = namespace_},
      [this] { MarkDirty(); }, std::move(reflector));
}

ApiNodeSource::~ApiNodeSource() { Stop(); }

void ApiNodeSource::Start() {
  thread_ = std::thread([this] { Run(); });
  watch_->Start();
}

void ApiNodeSource::Stop() {
  watch_->Stop();
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void ApiNodeSource::MarkDirty() {
  {
    std::lock_guard lock(mu_);
    dirty_ = true;
  }
  wake_.notify_all();
}

void ApiNodeSource::Run() {
  std::unique_lock lock(mu_);
  while (true) {
    wake_.wait(lock, [this] { return stopping_ || dirty_; });
    // The first list and an apply of many Nodes arrive as a burst of
    // changes: let it settle into one load.
    wake_.wait_for(lock, debounce_, [this] { return stopping_; });
    if (stopping_) return;
    dirty_ = false;
    lock.unlock();
    Gather();
    lock.lock();
  }
}

bool ApiNodeSource::NodeObjects(std::vector<json>* nodes) {
  if (configmap_.empty()) {
    for (const kube::ObjectPtr& object : watch_->informer().List()) {
      json typed = *object;
      typed["apiVersion"] = kApiVersion;
      typed["kind"] = "Node";
      nodes->push_back(std::move(typed));
    }
    return true;
  }
  const kube::ObjectPtr config_map =
      watch_->informer().Get(namespace_, configmap_);
  ProbeTargets targets = config_map
                             ? ReadProbeTargets(*config_map)
                             : ProbeTargets{{}, "the ConfigMap does not exist"};
  if (!targets.error.empty()) {
    runtime::Log(runtime::LogLevel::kError,
                 "probe-targets ConfigMap unusable; probing the last node set",
                 {{"configmap", namespace_ + "/" + configmap_},
                  {"error", targets.error}});
    return false;
  }
  *nodes = std::move(targets.nodes);
  return true;
}

void ApiNodeSource::Gather() {
  ApiObjects observed;
  json specs = json::object();
  if (!NodeObjects(&observed.nodes)) {
    last_specs_.reset();  // the same set back is news again
    return;
  }
  for (const json& node : observed.nodes) {
    // The cache indexes objects by metadata.name: it is there.
    specs[node["metadata"].value("name", std::string())] =
        node.value("spec", json());
  }
  if (last_specs_ && *last_specs_ == specs) return;
  last_specs_ = std::move(specs);

  GatheredWorld gathered = GatherWorld(observed);
  for (const auto& [object, errors] : gathered.invalid) {
    for (const ManifestError& e : errors) {
      runtime::Log(runtime::LogLevel::kError,
                   "Node rejected; probing the others without it",
                   {{"namespace", namespace_},
                    {"object", object},
                    {"field", e.field},
                    {"error", e.message}});
    }
  }
  rejected_.store(gathered.invalid.size());
  on_nodes_(gathered);
}

std::vector<prometheus::MetricFamily> ApiNodeSource::Families() const {
  std::vector<prometheus::MetricFamily> families = kube::ApiWatchFamilies(
      "ax_probe_nodes_source", "the Node objects", status());
  prometheus::ClientMetric rejected;
  rejected.gauge.value = static_cast<double>(rejected_.load());
  families.push_back({"ax_probe_nodes_source_rejected",
                      "Nodes left out of the probed set: they fail the "
                      "manifest parser or checks (logged by name)",
                      prometheus::MetricType::Gauge,
                      {std::move(rejected)}});
  return families;
}

}  // namespace ax::probe
