// axctl's connection to a cluster (cluster.h).
#include "axctl/cluster.h"

#include <iostream>

#include "ax/api_kinds.h"
#include "ax/manifest_objects.h"

namespace ax {

std::optional<Cluster> ConnectCluster(const Args& args, std::string_view verb) {
  std::string error;
  Cluster c{kube::ConnectKube(args.Get("--kubeconfig"), {}, &error), ""};
  if (!c.kube.client) {
    std::cerr << verb << ": " << error << "\n";
    return std::nullopt;
  }
  c.ns = args.Has("--namespace") ? args.Get("--namespace")
                                 : c.kube.default_namespace;
  return c;
}

kube::Resource AxCollection(std::string_view kind, const std::string& ns) {
  return {kApiGroup, kApiGroupVersion, std::string(ApiPlural(kind)), ns, ""};
}

std::optional<std::vector<nlohmann::json>> ListAx(kube::Client& client,
                                                  std::string_view kind,
                                                  const std::string& ns,
                                                  std::string_view verb) {
  auto listed = client.List(AxCollection(kind, ns));
  if (!listed) {
    std::cerr << verb << ": listing " << ApiPlural(kind) << " in " << ns << ": "
              << listed.error().ToString() << "\n";
    return std::nullopt;
  }
  for (nlohmann::json& object : listed->items) {
    object["apiVersion"] = kApiVersion;
    object["kind"] = kind;
  }
  return std::move(listed->items);
}

bool ListManifestObjects(kube::Client& client, const std::string& ns,
                         std::string_view verb, ApiObjects& out) {
  for (std::string_view kind : kManifestKinds) {
    auto listed = ListAx(client, kind, ns, verb);
    if (!listed) return false;
    *ObjectsOfKind(out, kind) = std::move(*listed);
  }
  return true;
}

}  // namespace ax
