// axctl's connection to a cluster (cluster.h).
#include "axctl/cluster.h"

#include <iostream>

#include "ax/api_kinds.h"

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

}  // namespace ax
