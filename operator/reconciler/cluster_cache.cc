// ClusterCache (cluster_cache.h): informers, and their caches -> ObservedState.
#include "cluster_cache.h"

#include "ax/route_table_configmap.h"
#include "watched_kinds.h"

namespace ax::controller {
namespace {

using nlohmann::json;

// List responses leave out each item's apiVersion and kind (watch events
// carry them); the plan and the ConfigMap codec read them.
void SetTypeMeta(std::vector<json>& objects, std::string_view api_version,
                 std::string_view kind) {
  for (json& object : objects) {
    if (!object.contains("apiVersion")) {
      object["apiVersion"] = std::string(api_version);
    }
    if (!object.contains("kind")) object["kind"] = std::string(kind);
  }
}

kube::InformerOptions Options(
    const std::string& resource, const std::function<void()>& on_change,
    const std::function<void(const std::string&, const kube::Error&)>&
        on_error) {
  kube::InformerOptions options;
  options.on_change = on_change;
  options.reflector.on_error = [on_error, resource](const kube::Error& e) {
    if (on_error) on_error(resource, e);
  };
  return options;
}

}  // namespace

ClusterCache::ClusterCache(
    kube::Client& client, const std::string& ns, const std::string& route_table,
    std::function<void()> on_change,
    std::function<void(const std::string&, const kube::Error&)> on_error)
    : route_table_(route_table) {
  for (const WatchedKind& k : kWatchedKinds) {
    const std::string resource(k.plural);
    kinds_.push_back(std::make_unique<kube::Informer>(
        client, GslbResource(k.kind, ns), kube::ListWatchOptions{},
        Options(resource, on_change, on_error)));
  }
  // The current table and its kept versions share these two labels.
  kube::ListWatchOptions route_tables;
  route_tables.label_selector = std::string(kPartOfLabel) + "=" + kPartOfValue +
                                "," + kRouteTableLabel + "=" + route_table;
  config_maps_ = std::make_unique<kube::Informer>(
      client, kube::ConfigMaps().In(ns), std::move(route_tables),
      Options("configmaps", on_change, on_error));
}

ClusterCache::~ClusterCache() { Stop(); }

void ClusterCache::Start() {
  for (auto& informer : kinds_) informer->Start();
  config_maps_->Start();
}

void ClusterCache::Stop() {
  for (auto& informer : kinds_) informer->Stop();
  config_maps_->Stop();
}

bool ClusterCache::Synced() const {
  for (const auto& informer : kinds_) {
    if (!informer->HasSynced()) return false;
  }
  return config_maps_->HasSynced();
}

ObservedState ClusterCache::Gather(int64_t now_ms, const PlanOptions& options,
                                   WrittenObjects& written) const {
  const auto now = WrittenObjects::Clock::now();
  ObservedState o;
  o.now_ms = now_ms;
  o.options = options;
  std::vector<json>* lists[] = {&o.domains,       &o.regions,      &o.nodes,
                                &o.rules,         &o.canaries,     &o.isp_sets,
                                &o.geo_overrides, &o.probe_reports};
  for (size_t i = 0; i < kWatchedKinds.size(); ++i) {
    *lists[i] = written.Merge(kWatchedKinds[i].kind, kinds_[i]->View(), now);
    SetTypeMeta(*lists[i], kApiVersion, kWatchedKinds[i].kind);
  }
  std::vector<json> config_maps =
      written.Merge("ConfigMap", config_maps_->View(), now);
  SetTypeMeta(config_maps, "v1", "ConfigMap");
  for (json& cm : config_maps) {
    const json meta = cm.value("metadata", json::object());
    const json labels = meta.value("labels", json::object());
    if (meta.value("name", std::string()) == route_table_) {
      o.route_table = std::move(cm);
    } else if (labels.value(kRouteTableRoleLabel, std::string()) == "history") {
      o.history.push_back(std::move(cm));
    }
  }
  return o;
}

std::map<std::string, uint64_t> ClusterCache::WatchRestarts() const {
  std::map<std::string, uint64_t> out;
  for (size_t i = 0; i < kWatchedKinds.size(); ++i) {
    out[std::string(kWatchedKinds[i].plural)] =
        kinds_[i]->counters().watch_restarts;
  }
  return out;
}

}  // namespace ax::controller
