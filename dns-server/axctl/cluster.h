// How axctl reaches a cluster: the kube config from --kubeconfig ("" means
// $KUBECONFIG, in-cluster, then ~/.kube/config, as kubectl and its plugins
// look), the namespace from --namespace/-n or the config's, and the paths of
// the gslb.ax.io resources there. Connecting only; what each verb asks is its
// own.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "ax/kube/client.h"
#include "ax/kube_runtime/kube_connect.h"
#include "axctl/args.h"

namespace ax {

struct Cluster {
  kube::KubeConnection kube;
  std::string ns;
};

// nullopt after saying why on stderr, prefixed with `verb`.
std::optional<Cluster> ConnectCluster(const Args& args, std::string_view verb);

// The collection of `kind` (a gslb.ax.io kind) in `ns`; .Named(name) for one.
kube::Resource AxCollection(std::string_view kind, const std::string& ns);

}  // namespace ax
