// A Kubernetes client for ax-dns and ax-probe from their --kubeconfig flag:
// the kube config looked up ("" means $KUBECONFIG, in-cluster, then
// ~/.kube/config) and the client made, with an error that says which of the
// two failed. Contacts no apiserver. What to ask the API is the callers'.
#pragma once

#include <memory>
#include <string>

#include "ax/kube/client.h"

namespace ax::kube {

struct KubeConnection {
  std::unique_ptr<kube::Client> client;  // null when connecting failed
  std::string config_source;             // where the config came from, for logs
  std::string default_namespace;         // the kubeconfig's, or the pod's
};

// On failure `client` is null and `error` reads "kube config: ..." or
// "kube client (SOURCE): ...".
KubeConnection ConnectKube(const std::string& kubeconfig,
                           const kube::ClientOptions& options,
                           std::string* error);

}  // namespace ax::kube
