// ax-operator settings: one table of flags, each settable on the command line
// (--name VALUE / --name=VALUE), from the environment (AX_OPERATOR_NAME, '-'
// as '_') and from a YAML/JSON --config file whose keys are flag names, with
// ax-dns's and ax-probe's conventions and value parsers. Precedence: flag >
// env > file > default. Pure apart from reading the config file and host name.
#pragma once

#include <chrono>
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "ax/runtime/log.h"

namespace ax::controller {

struct OperatorConfig {
  std::string config_file;
  std::string kubeconfig;      // "": in-cluster (or $KUBECONFIG, ~/.kube)
  std::string namespace_name;  // "": the kubeconfig context's / the pod's
  std::string route_table = "ax-route-table";
  size_t history = 5;
  // --owner ServiceAccount/NAME, in the namespace: the owner of the
  // ConfigMaps and the Lease this operator creates, so that they are deleted
  // with it (on `helm uninstall`). "": they have no owner.
  std::string owner_service_account;
  bool leader_elect = true;
  std::string lease_name = "ax-operator";
  std::string identity;  // the lease holder; $POD_NAME or the host name
  std::string pod;       // ax_operator_leader{pod}: $POD_NAME or identity
  std::chrono::milliseconds lease_duration{15'000};
  std::chrono::milliseconds renew_deadline{10'000};
  std::chrono::milliseconds retry_period{2'000};
  std::string http_listen;  // /metrics, /healthz, /readyz; "" disables
  std::chrono::milliseconds resync{30'000};
  std::chrono::milliseconds debounce{100};
  // Member clusters (operator/members/): their kubeconfig Secrets' label
  // selector ("" none), how often each is synced and confirmed.
  std::string members;
  std::chrono::milliseconds member_sync{10'000};
  std::chrono::milliseconds member_heartbeat{30'000};
  runtime::LogLevel log_level = runtime::LogLevel::kInfo;
};

struct OperatorConfigResult {
  bool ok = false;
  bool help = false;  // --help: print OperatorHelpText(), exit 0
  std::string error;  // when !ok: tell the user, exit 2
  OperatorConfig config;
};

// `args` excludes the program name; AX_OPERATOR_* and POD_NAME of `env` are
// read.
OperatorConfigResult ParseOperatorConfig(
    const std::vector<std::string>& args,
    const std::map<std::string, std::string>& env);

std::string OperatorHelpText();

}  // namespace ax::controller
