// KubeSource: informer events -> codec -> store. The store decides whether a
// snapshot is good and whether its version goes up; this file only decides
// what to decode and says what the API connection is doing.
#include "server/kube_source.h"

#include "ax/kube/resource.h"
#include "ax/kube_runtime/kube_connect.h"
#include "ax/rfc3339.h"
#include "ax/route_table_configmap.h"
#include "ax/runtime/log.h"

namespace ax::dns {
namespace {

using nlohmann::json;

// What decoding reads: both payload keys and our two annotations. Other
// metadata (resourceVersion, managedFields, labels) changes without changing
// the document.
json DecodeInputs(const json& config_map) {
  json inputs = json::object();
  for (const char* field : {"data", "binaryData"}) {
    if (const auto it = config_map.find(field); it != config_map.end()) {
      inputs[field] = *it;
    }
  }
  const auto meta = config_map.find("metadata");
  if (meta == config_map.end()) return inputs;
  const auto annotations = meta->find("annotations");
  if (annotations == meta->end()) return inputs;
  for (const char* key : {kSnapshotVersionAnnotation, kContentHashAnnotation}) {
    if (const auto it = annotations->find(key); it != annotations->end()) {
      inputs[key] = *it;
    }
  }
  return inputs;
}

// The object with its kind: the items of a list response carry none (only
// watch events do), and the codec checks it.
json Typed(const json& config_map) {
  json typed = config_map;
  if (!typed.is_object()) return typed;  // the codec says what is wrong
  typed["apiVersion"] = "v1";
  typed["kind"] = "ConfigMap";
  return typed;
}

}  // namespace

std::unique_ptr<KubeSource> KubeSource::Create(const KubeSourceOptions& options,
                                               SnapshotStore* store,
                                               std::string* error) {
  kube::ClientOptions client_options;
  client_options.user_agent = "ax-dns";
  kube::KubeConnection connection =
      kube::ConnectKube(options.kubeconfig, client_options, error);
  if (!connection.client) return nullptr;
  kube::ListWatchOptions selection;
  selection.field_selector = "metadata.name=" + options.name;
  auto source = std::make_unique<KubeSource>(
      kube::NewListerWatcher(*connection.client,
                             kube::ConfigMaps().In(options.namespace_name),
                             selection),
      options, store);
  runtime::Log(
      runtime::LogLevel::kInfo, "snapshot source: Kubernetes API",
      {{"configmap", source->source_}, {"config", connection.config_source}});
  source->client_ = std::move(connection.client);
  return source;
}

KubeSource::KubeSource(std::unique_ptr<kube::ListerWatcher> lister_watcher,
                       const KubeSourceOptions& options, SnapshotStore* store,
                       kube::ReflectorOptions reflector)
    : ns_(options.namespace_name),
      name_(options.name),
      source_("configmap:" + ns_ + "/" + name_),
      store_(store) {
  watch_ = std::make_unique<kube::ApiWatch>(
      std::move(lister_watcher),
      kube::ApiWatchLabels{.name = "snapshot source",
                           .keeping = "serving the last snapshot",
                           .key = "configmap",
                           .value = source_},
      [this] { OnChange(); }, std::move(reflector));
}

KubeSource::~KubeSource() { Stop(); }

void KubeSource::Start() { watch_->Start(); }

void KubeSource::Stop() { watch_->Stop(); }

void KubeSource::Missing() {
  if (missing_) return;
  missing_ = true;
  last_inputs_.reset();  // the same content re-created is news
  const std::string message = source_ + ": the ConfigMap does not exist";
  runtime::Log(runtime::LogLevel::kWarn,
               "route-table ConfigMap missing; serving the last snapshot",
               {{"configmap", source_}});
  // Before any snapshot, readiness should say what it waits for.
  if (!store_->Current()) store_->RecordError(message);
}

void KubeSource::OnChange() {
  const kube::ObjectPtr config_map = watch_->informer().Get(ns_, name_);
  if (!config_map) {
    Missing();
    return;
  }
  missing_ = false;
  const json annotations = config_map->value("metadata", json::object())
                               .value("annotations", json::object());
  if (auto confirmed = ParseRfc3339Ms(
          annotations.value(kConfirmedAtAnnotation, std::string()))) {
    confirmed_at_ms_.store(*confirmed);
  }
  json inputs = DecodeInputs(*config_map);
  if (last_inputs_ && *last_inputs_ == inputs) return;
  // Remember rejected inputs too: the same broken object is reported once,
  // not again on every relist.
  last_inputs_ = std::move(inputs);

  ParseRouteTableResult parsed = ParseRouteTableConfigMap(Typed(*config_map));
  if (parsed.error) {
    const std::string message = source_ + ": " + parsed.error->ToString();
    runtime::Log(
        runtime::LogLevel::kError,
        "route-table ConfigMap unusable, keeping the last good snapshot",
        {{"configmap", source_}, {"error", message}});
    store_->RecordError(message);
    return;
  }
  store_->Load(std::make_shared<const Snapshot>(std::move(*parsed.snapshot)),
               source_);
}

}  // namespace ax::dns
