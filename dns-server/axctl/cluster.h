// How axctl reaches a cluster: the kube config from --kubeconfig ("" means
// $KUBECONFIG, in-cluster, then ~/.kube/config, as kubectl and its plugins
// look), the namespace from --namespace/-n or the config's, and the paths of
// the gslb.ax.io resources there. Connecting only; what each verb asks is its
// own.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ax/gather.h"
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

// The objects of `kind` (a gslb.ax.io kind) in `ns`, each with its apiVersion
// and kind (list items come without them, and the parsers check them);
// nullopt after saying why on stderr, prefixed with `verb`.
std::optional<std::vector<nlohmann::json>> ListAx(kube::Client& client,
                                                  std::string_view kind,
                                                  const std::string& ns,
                                                  std::string_view verb);

// The objects of every kind a World is made of (kManifestKinds) in `ns`;
// false after saying why, as ListAx.
bool ListManifestObjects(kube::Client& client, const std::string& ns,
                         std::string_view verb, ApiObjects& out);

}  // namespace ax
