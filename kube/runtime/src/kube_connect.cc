// ConnectKube (kube_connect.h).
#include "ax/kube_runtime/kube_connect.h"

#include "ax/kube/config.h"

namespace ax::kube {

KubeConnection ConnectKube(const std::string& kubeconfig,
                           const kube::ClientOptions& options,
                           std::string* error) {
  kube::Result<kube::Config> config = kube::LoadConfig(kubeconfig);
  if (!config) {
    *error = "kube config: " + config.error().ToString();
    return {};
  }
  kube::Result<std::unique_ptr<kube::Client>> client =
      kube::Client::Create(*config, options);
  if (!client) {
    *error =
        "kube client (" + config->source + "): " + client.error().ToString();
    return {};
  }
  return {.client = std::move(*client),
          .config_source = config->source,
          .default_namespace = config->default_namespace};
}

}  // namespace ax::kube
