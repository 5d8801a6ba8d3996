// The served table and the declared objects, from a cluster or manifests.
#include "axctl/traffic_baseline.h"

#include <iostream>

#include "ax/gather.h"
#include "ax/route_table_configmap.h"
#include "axctl/what_if.h"
#include "axctl/world_source.h"

namespace ax {
namespace {

std::optional<Snapshot> Decoded(const nlohmann::json& cm,
                                const std::string& name,
                                std::string_view verb) {
  ParseRouteTableResult parsed = ParseRouteTableConfigMap(cm);
  if (!parsed.snapshot) {
    std::cerr << verb << ": ConfigMap " << name << ": "
              << parsed.error->ToString() << "\n";
  }
  return std::move(parsed.snapshot);
}

std::optional<Snapshot> ServedSnapshot(const TrafficBaseline& b,
                                       std::string_view verb) {
  kube::Client& client = *b.cluster->kube.client;
  auto cm =
      client.Get(kube::ConfigMaps().In(b.cluster->ns).Named(b.route_table));
  if (!cm) {
    std::cerr << verb << ": ConfigMap " << b.cluster->ns << "/" << b.route_table
              << ": " << cm.error().ToString() << "\n";
    return std::nullopt;
  }
  return Decoded(*cm, b.route_table, verb);
}

// Listed by the history selector, as axctl rollback does: the console Role
// may list ConfigMaps but get only the served one.
std::optional<Snapshot> KeptSnapshot(const TrafficBaseline& b, uint64_t version,
                                     std::string_view verb) {
  const std::string name = HistoryConfigMapName(b.route_table, version);
  auto kept = b.cluster->kube.client->List(
      kube::ConfigMaps().In(b.cluster->ns),
      {.label_selector = RouteTableHistorySelector(b.route_table)});
  if (!kept) {
    std::cerr << verb << ": listing the kept versions of " << b.route_table
              << ": " << kept.error().ToString() << "\n";
    return std::nullopt;
  }
  for (const nlohmann::json& cm : kept->items) {
    if (cm.value("/metadata/name"_json_pointer, "") == name) {
      // A list's items go without their kind.
      nlohmann::json object = cm;
      object["apiVersion"] = "v1";
      object["kind"] = "ConfigMap";
      return Decoded(object, name, verb);
    }
  }
  std::cerr << verb << ": version " << version << " is not kept (no ConfigMap "
            << name << ")\n";
  return std::nullopt;
}

bool ListWorld(TrafficBaseline& b, std::string_view verb) {
  ApiObjects objects;
  if (!ListManifestObjects(*b.cluster->kube.client, b.cluster->ns, verb,
                           objects)) {
    return false;
  }
  GatheredWorld gathered = GatherWorld(objects);
  for (const auto& [object, errors] : gathered.invalid) {
    std::cerr << verb << ": warning: " << object
              << " is left out, as the operator leaves it out: "
              << errors.front().ToString() << "\n";
  }
  b.world = std::move(gathered.world);
  return true;
}

}  // namespace

std::optional<TrafficBaseline> LoadTrafficBaseline(const Args& args,
                                                   std::string_view verb) {
  TrafficBaseline b;
  if (args.Has("--manifests")) {
    if (!LoadManifests(args.All("--manifests"), b.world)) return std::nullopt;
    if (!args.Has("--snapshot")) {
      b.served = SnapshotOfWorld(b.world);
      return b;
    }
    std::optional<Snapshot> served = SnapshotFromFile(args.Get("--snapshot"));
    if (!served) return std::nullopt;
    b.served = std::move(*served);
    return b;
  }
  b.cluster = ConnectCluster(args, verb);
  if (!b.cluster) return std::nullopt;
  b.route_table =
      args.Has("--route-table") ? args.Get("--route-table") : "ax-route-table";
  std::optional<Snapshot> served = ServedSnapshot(b, verb);
  if (!served || !ListWorld(b, verb)) return std::nullopt;
  b.served = std::move(*served);
  return b;
}

std::optional<Snapshot> NamedSnapshot(const TrafficBaseline& baseline,
                                      const std::string& name, int64_t now_ms,
                                      std::string_view verb) {
  if (name == "served") return baseline.served;
  if (name == "next") {
    return Rebuild(baseline.world,
                   InputsOfSnapshot(baseline.served, baseline.world),
                   baseline.served, now_ms);
  }
  const std::optional<uint64_t> version =
      name.starts_with('v') ? ParseNumber<uint64_t>(name.substr(1))
                            : std::nullopt;
  if (version) {
    if (!baseline.cluster) {
      std::cerr << verb << ": " << name
                << ": kept versions live in a cluster (not with --manifests)\n";
      return std::nullopt;
    }
    return KeptSnapshot(baseline, *version, verb);
  }
  return SnapshotFromFile(name);
}

}  // namespace ax
