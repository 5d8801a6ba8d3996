// The ax-operator flag table (the runtime's flag_table.h does the reading and
// the precedence, as for ax-dns and ax-probe) and the checks between flags.
#include "config.h"

#include <unistd.h>

#include "ax/runtime/config_values.h"
#include "ax/runtime/flag_table.h"

namespace ax::controller {
namespace {

using Flag = runtime::FlagSpec<OperatorConfig>;

bool SetHistory(OperatorConfig& c, const std::string& v, std::string* error) {
  int64_t n = 0;
  if (!runtime::ParseInt(v, 1, 100, &n, error)) return false;
  c.history = static_cast<size_t>(n);
  return true;
}

bool SetRouteTable(OperatorConfig& c, const std::string& v,
                   std::string* error) {
  if (v.empty()) {
    *error = "must not be empty";
    return false;
  }
  c.route_table = v;
  return true;
}

// --owner KIND/NAME. One kind is enough so far: the chart's ServiceAccount,
// which `helm uninstall` deletes.
bool SetOwner(OperatorConfig& c, const std::string& v, std::string* error) {
  c.owner_service_account.clear();
  if (v.empty()) return true;
  const size_t slash = v.find('/');
  const std::string name =
      slash == std::string::npos ? "" : v.substr(slash + 1);
  if (name.empty() || name.find('/') != std::string::npos) {
    *error = "want KIND/NAME, got \"" + v + "\"";
    return false;
  }
  if (const std::string kind = v.substr(0, slash); kind != "ServiceAccount") {
    *error = "kind " + kind + " is not supported (only ServiceAccount)";
    return false;
  }
  c.owner_service_account = name;
  return true;
}

const std::vector<Flag>& Flags() {
  static const std::vector<Flag> flags = {
      {"config", "FILE", "",
       "YAML or JSON file of settings (keys are flag names)",
       runtime::TextFlag(&OperatorConfig::config_file)},
      {"kubeconfig", "FILE", "",
       "kubeconfig to reach the apiserver (default: in-cluster, else "
       "$KUBECONFIG or ~/.kube/config)",
       runtime::TextFlag(&OperatorConfig::kubeconfig)},
      {"namespace", "NS", "",
       "where the gslb.ax.io objects, the route-table ConfigMap and the "
       "Lease live (default: the pod's namespace, or the kubeconfig "
       "context's)",
       runtime::TextFlag(&OperatorConfig::namespace_name)},
      {"route-table", "NAME", "ax-route-table",
       "the route-table ConfigMap's name (kept versions: NAME-v<version>)",
       runtime::OneValue<OperatorConfig>(SetRouteTable)},
      {"history", "N", "5", "published versions kept for rollback",
       runtime::OneValue<OperatorConfig>(SetHistory)},
      {"owner", "KIND/NAME", "",
       "the object of the namespace (a ServiceAccount) that owns the "
       "ConfigMaps and the Lease this operator creates, so that deleting it "
       "deletes them; it must be readable at start",
       runtime::OneValue<OperatorConfig>(SetOwner)},
      {"leader-elect", "", "true",
       "elect one writing replica through a Lease (off: this replica "
       "always writes)",
       runtime::BoolFlag(&OperatorConfig::leader_elect),
       runtime::FlagArity::kSwitch},
      {"lease-name", "NAME", "ax-operator", "the leader election Lease",
       runtime::TextFlag(&OperatorConfig::lease_name)},
      {"identity", "NAME", "",
       "this replica's name in the Lease (default: $POD_NAME, else the "
       "host name)",
       runtime::TextFlag(&OperatorConfig::identity)},
      {"lease-duration", "DURATION", "15s",
       "how long a lease holds without renewal (whole seconds)",
       runtime::DurationFlag(&OperatorConfig::lease_duration)},
      {"renew-deadline", "DURATION", "10s",
       "a leader that has not renewed for this long stops writing",
       runtime::DurationFlag(&OperatorConfig::renew_deadline)},
      {"retry-period", "DURATION", "2s",
       "pause between attempts to acquire or renew the lease",
       runtime::DurationFlag(&OperatorConfig::retry_period)},
      {"http-listen", "ADDR:PORT", "0.0.0.0:8082",
       "/metrics, /healthz, /readyz address; empty disables",
       runtime::ListenFlag(&OperatorConfig::http_listen)},
      {"resync", "DURATION", "30s",
       "plan the whole world again this often even without a change",
       runtime::DurationFlag(&OperatorConfig::resync)},
      {"debounce", "DURATION", "100ms",
       "after a change, wait this long for more before planning",
       runtime::DurationFlag(&OperatorConfig::debounce)},
      {"members", "SELECTOR", "",
       "label selector of the Secrets (in --namespace) holding member "
       "clusters' kubeconfigs: the route table is published to each, and "
       "their ProbeReports count as vantages; empty: no members",
       runtime::TextFlag(&OperatorConfig::members)},
      {"member-sync", "DURATION", "10s",
       "how often each member's ProbeReports are listed and its copies "
       "checked",
       runtime::DurationFlag(&OperatorConfig::member_sync)},
      {"member-heartbeat", "DURATION", "30s",
       "how often each member's route-table copy is confirmed current "
       "(its gslb.ax.io/confirmed-at annotation)",
       runtime::DurationFlag(&OperatorConfig::member_heartbeat)},
      {"log-level", "LEVEL", "info", "debug, info, warn or error",
       runtime::LogLevelFlag(&OperatorConfig::log_level)},
  };
  return flags;
}

std::string HostName() {
  char host[256] = {};
  ::gethostname(host, sizeof(host) - 1);
  return host;
}

// The checks between flags: the lease timing client-go demands (a leader
// gives up before anyone may take over) is ax_kube's, checked at start.
bool CheckLease(const OperatorConfig& c, std::string* error) {
  if (c.lease_duration.count() % 1000 != 0) {
    *error = "--lease-duration: whole seconds (the Lease stores seconds)";
    return false;
  }
  return true;
}

}  // namespace

OperatorConfigResult ParseOperatorConfig(
    const std::vector<std::string>& args,
    const std::map<std::string, std::string>& env) {
  OperatorConfigResult result;
  const runtime::FlagResult flags =
      runtime::ApplyFlags(Flags(), "AX_OPERATOR_", args, env, &result.config);
  result.help = flags.help;
  result.error = flags.error;
  if (!flags.ok || flags.help) {
    result.ok = flags.ok;
    return result;
  }
  OperatorConfig& c = result.config;
  if (!CheckLease(c, &result.error)) return result;
  const auto pod = env.find("POD_NAME");
  const std::string pod_name = pod == env.end() ? "" : pod->second;
  if (c.identity.empty()) c.identity = pod_name.empty() ? HostName() : pod_name;
  c.pod = pod_name.empty() ? c.identity : pod_name;
  result.ok = true;
  return result;
}

std::string OperatorHelpText() {
  std::string text =
      "usage: ax-operator [flags]\n\n"
      "Ax's operator: watches the gslb.ax.io objects and ProbeReports of one\n"
      "namespace, publishes the route-table ConfigMap ax-dns serves and\n"
      "writes statuses and Events; one replica writes (leader election).\n"
      "Every flag is also read from the environment as AX_OPERATOR_<FLAG>\n"
      "and from the --config file; precedence: flag > env > file > "
      "default.\n\nflags:\n";
  text += runtime::FlagHelpLines(runtime::FlagInfos(Flags()));
  return text;
}

}  // namespace ax::controller
