// ax-probe settings: one table of flags, each settable on the command line
// (--name VALUE / --name=VALUE), from the environment (AX_PROBE_NAME, '-' as
// '_') and from a YAML/JSON --config file whose keys are flag names, with
// ax-dns's conventions and value parsers. Precedence: flag > env > file >
// default. Pure apart from reading the config file and the host name.
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "ax/runtime/log.h"
#include "ax/vantage.h"

namespace ax::probe {

struct SidecarConfig {
  std::string config_file;
  // What to probe: the Nodes with a healthCheck in the manifests of this
  // watched directory, or (nodes_api) the Node objects of --namespace
  // through the Kubernetes API. Exactly one of the two.
  std::string manifests_dir;
  bool nodes_api = false;
  // With nodes_api: the Nodes of this probe-targets ConfigMap instead of
  // Node objects (a member cluster, whose control plane writes it).
  std::string nodes_configmap;
  std::string vantage;  // report identity; the host name by default
  // Where the vantage sits (--vantage-area/-isp/-label): the Regions of that
  // area and isp, or whose vantageSelector its labels match, are answered
  // with what it measures.
  VantageIdentity identity;
  std::string report;  // "-" stdout (one JSON per line), "" none, FILE
  std::chrono::milliseconds heartbeat{10'000};
  // --report-api: also apply the report through the Kubernetes API. It and
  // --nodes-api reach the API with --kubeconfig (else $KUBECONFIG,
  // in-cluster) in --namespace (else the config's / the pod's namespace).
  bool report_api = false;
  std::string kubeconfig;
  std::string namespace_name;
  // The pod owning the report (env POD_NAME, POD_UID from the downward API);
  // either empty: no ownerReference.
  std::string pod_name;
  std::string pod_uid;
  std::string http_listen;  // /metrics, /healthz, /readyz; "" disables
  // ax-dns's --api-listen beside this sidecar: each report's spec.served.
  std::string served_from;
  std::string probe_ca;  // PEM bundle for HTTPS checks; "": system
  bool probe_insecure = false;
  std::string probe_token_dir;  // tokens: <dir>/<healthCheck.tokenSecretRef>
  std::chrono::milliseconds reload_debounce{200};
  runtime::LogLevel log_level = runtime::LogLevel::kInfo;
};

struct SidecarConfigResult {
  bool ok = false;
  bool help = false;  // --help: print SidecarHelpText(), exit 0
  std::string error;  // when !ok: tell the user, exit 2
  SidecarConfig config;
};

// `args` excludes the program name; of `env`, AX_PROBE_* keys and the
// downward API's POD_NAME and POD_UID are read.
SidecarConfigResult ParseSidecarConfig(
    const std::vector<std::string>& args,
    const std::map<std::string, std::string>& env);

std::string SidecarHelpText();

}  // namespace ax::probe
