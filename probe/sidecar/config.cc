// The ax-probe flag table (the runtime's flag_table.h does the reading and the
// precedence, as for ax-dns and ax-operator).
#include "sidecar/config.h"

#include <unistd.h>

#include <utility>

#include "ax/runtime/config_values.h"
#include "ax/runtime/flag_table.h"

namespace ax::probe {
namespace {

using Flag = runtime::FlagSpec<SidecarConfig>;

bool SetVantage(SidecarConfig& c, const std::string& v, std::string*) {
  c.vantage = v;
  if (c.vantage.empty()) {
    char host[256] = {};
    ::gethostname(host, sizeof(host) - 1);
    c.vantage = host;
  }
  return true;
}

bool SetArea(SidecarConfig& c, const std::string& v, std::string*) {
  c.identity.area = v;
  return true;
}

bool SetIsp(SidecarConfig& c, const std::string& v, std::string*) {
  c.identity.isp = v;
  return true;
}

// KEY=VALUE each; the key non-empty and given once.
bool SetLabels(SidecarConfig& c, const runtime::FlagValues& values,
               std::string* error) {
  c.identity.labels.clear();
  for (const std::string& label : values) {
    if (label.empty()) continue;
    const size_t eq = label.find('=');
    if (eq == 0 || eq == std::string::npos) {
      *error = "\"" + label + "\" is not KEY=VALUE";
      return false;
    }
    if (!c.identity.labels.emplace(label.substr(0, eq), label.substr(eq + 1))
             .second) {
      *error = "label \"" + label.substr(0, eq) + "\" given twice";
      return false;
    }
  }
  return true;
}

const std::vector<Flag>& Flags() {
  static const std::vector<Flag> flags = {
      {"config", "FILE", "",
       "YAML or JSON file of settings (keys are flag names)",
       runtime::TextFlag(&SidecarConfig::config_file)},
      {"manifests", "DIR", "",
       "probe the Nodes with a healthCheck in the YAML manifests in DIR "
       "(re-read on change); standalone, without Kubernetes",
       runtime::TextFlag(&SidecarConfig::manifests_dir)},
      {"nodes-api", "", "false",
       "probe the Nodes with a healthCheck among the Node objects in "
       "--namespace, watched through the Kubernetes API (a Node that fails "
       "the manifest checks is logged and left out)",
       runtime::BoolFlag(&SidecarConfig::nodes_api),
       runtime::FlagArity::kSwitch},
      {"nodes-configmap", "NAME", "",
       "with --nodes-api, in a member cluster: read the Nodes from this "
       "probe-targets ConfigMap (the control plane's operator writes it, "
       "e.g. ax-route-table-nodes) instead of Node objects",
       runtime::TextFlag(&SidecarConfig::nodes_configmap)},
      {"vantage", "NAME", "",
       "this prober's name in reports and metrics (default: the host name)",
       runtime::OneValue<SidecarConfig>(SetVantage)},
      {"vantage-area", "AREA", "",
       "the area this prober probes from (e.g. cn-south): it measures for "
       "the Regions of that area",
       runtime::OneValue<SidecarConfig>(SetArea)},
      {"vantage-isp", "ISP", "",
       "the ISP network it probes from (e.g. unicom): it measures for the "
       "Regions of its area with that isp (or isp any)",
       runtime::OneValue<SidecarConfig>(SetIsp)},
      {"vantage-label", "KEY=VALUE", "",
       "a label of this vantage, for Region vantageSelectors; repeatable",
       SetLabels, runtime::FlagArity::kList},
      {"report", "FILE", "-",
       "write the ProbeReport JSON to FILE (atomically replaced), - for "
       "stdout (one JSON per line); empty: no report",
       runtime::TextFlag(&SidecarConfig::report)},
      {"report-api", "", "false",
       "also write the ProbeReport through the Kubernetes API (server-side "
       "apply; owned by the pod given POD_NAME and POD_UID)",
       runtime::BoolFlag(&SidecarConfig::report_api),
       runtime::FlagArity::kSwitch},
      {"kubeconfig", "FILE", "",
       "--nodes-api, --report-api: kubeconfig to reach the API (default: "
       "$KUBECONFIG, in-cluster, ~/.kube/config)",
       runtime::TextFlag(&SidecarConfig::kubeconfig)},
      {"namespace", "NS", "",
       "--nodes-api, --report-api: the namespace of the Nodes and of the "
       "report (default: the kubeconfig's or the pod's)",
       runtime::TextFlag(&SidecarConfig::namespace_name)},
      {"heartbeat", "DURATION", "10s",
       "rewrite the report this often even without a health change",
       runtime::DurationFlag(&SidecarConfig::heartbeat)},
      {"http-listen", "ADDR:PORT", "0.0.0.0:8081",
       "/metrics, /healthz, /readyz address; empty disables",
       runtime::ListenFlag(&SidecarConfig::http_listen)},
      {"served-from", "ADDR:PORT", "",
       "ax-dns's --api-listen beside this prober: the route-table version "
       "it serves goes in each report (spec.served); empty: none",
       runtime::ListenFlag(&SidecarConfig::served_from)},
      {"probe-ca", "FILE", "",
       "PEM CA bundle HTTPS health checks verify against (default: system)",
       runtime::TextFlag(&SidecarConfig::probe_ca)},
      {"probe-insecure", "", "false",
       "HTTPS health checks accept any certificate",
       runtime::BoolFlag(&SidecarConfig::probe_insecure),
       runtime::FlagArity::kSwitch},
      {"probe-token-dir", "DIR", "",
       "probe tokens: the file DIR/<healthCheck.tokenSecretRef>",
       runtime::TextFlag(&SidecarConfig::probe_token_dir)},
      {"reload-debounce", "DURATION", "200ms",
       "wait this long after a manifest or Node object change",
       runtime::DurationFlag(&SidecarConfig::reload_debounce)},
      {"log-level", "LEVEL", "info", "debug, info, warn or error",
       runtime::LogLevelFlag(&SidecarConfig::log_level)},
  };
  return flags;
}

}  // namespace

SidecarConfigResult ParseSidecarConfig(
    const std::vector<std::string>& args,
    const std::map<std::string, std::string>& env) {
  SidecarConfigResult result;
  const runtime::FlagResult flags =
      runtime::ApplyFlags(Flags(), "AX_PROBE_", args, env, &result.config);
  result.help = flags.help;
  result.error = flags.error;
  if (!flags.ok || flags.help) {
    result.ok = flags.ok;
    return result;
  }
  for (auto [key, field] : {std::pair{"POD_NAME", &SidecarConfig::pod_name},
                            std::pair{"POD_UID", &SidecarConfig::pod_uid}}) {
    if (const auto it = env.find(key); it != env.end()) {
      result.config.*field = it->second;
    }
  }
  const bool from_dir = !result.config.manifests_dir.empty();
  if (from_dir == result.config.nodes_api) {
    result.error =
        from_dir ? "--manifests and --nodes-api exclude each other: probe "
                   "the Nodes of a directory or of the Kubernetes API"
                 : "what to probe: --manifests DIR (standalone) or "
                   "--nodes-api (the Node objects; see --help)";
    return result;
  }
  if (!result.config.nodes_configmap.empty() && !result.config.nodes_api) {
    result.error =
        "--nodes-configmap reads the Nodes through the API: it "
        "needs --nodes-api";
    return result;
  }
  result.ok = true;
  return result;
}

std::string SidecarHelpText() {
  std::string text =
      "usage: ax-probe --nodes-api [--report-api] [flags]\n"
      "       ax-probe --manifests DIR [flags]\n\n"
      "Health prober for Ax: probes every Node with a healthCheck from one\n"
      "vantage and writes a ProbeReport (on every health change and as a\n"
      "heartbeat). In a cluster it reads the Node objects through the\n"
      "Kubernetes API (--nodes-api; the chart's sidecar does); standalone it\n"
      "reads YAML manifests (--manifests). Every flag is also read from the\n"
      "environment as AX_PROBE_<FLAG> and from the --config file;\n"
      "precedence: flag > env > file > default.\n\nflags:\n";
  text += runtime::FlagHelpLines(runtime::FlagInfos(Flags()));
  return text;
}

}  // namespace ax::probe
