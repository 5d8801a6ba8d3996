// The ax-operator flag table and the precedence resolution. As in ax-dns and
// ax-probe, each default is text run through the same setter as user input,
// so --help and the behaviour cannot disagree; the value parsers are ax-dns's.
#include "config.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <optional>

#include "server/config_file.h"
#include "server/config_values.h"
#include "server/net.h"

namespace ax::controller {
namespace {

using Setter = std::function<bool(OperatorConfig&, const std::string& value,
                                  std::string* error)>;

struct Flag {
  const char* name;
  const char* arg;           // what the value is, for --help ("" for bool)
  const char* default_text;  // shown in --help and applied first
  const char* help;
  Setter set;
  bool boolean = false;  // takes no value on the command line
};

Setter Text(std::string OperatorConfig::*field) {
  return [=](OperatorConfig& c, const std::string& v, std::string*) {
    c.*field = v;
    return true;
  };
}
Setter Duration(std::chrono::milliseconds OperatorConfig::*field) {
  return [=](OperatorConfig& c, const std::string& v, std::string* e) {
    if (!dns::ParseDuration(v, &(c.*field), e)) return false;
    if ((c.*field).count() > 0) return true;
    *e = "must be longer than 0";
    return false;
  };
}
Setter Bool(bool OperatorConfig::*field) {
  return [=](OperatorConfig& c, const std::string& v, std::string* e) {
    return dns::ParseBool(v, &(c.*field), e);
  };
}

bool SetHistory(OperatorConfig& c, const std::string& v, std::string* error) {
  int64_t n = 0;
  if (!dns::ParseInt(v, 1, 100, &n, error)) return false;
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

bool SetHttpListen(OperatorConfig& c, const std::string& v,
                   std::string* error) {
  dns::Endpoint at;
  if (!v.empty() && !dns::ParseEndpoint(v, &at, error)) return false;
  c.http_listen = v;
  return true;
}

bool SetLogLevel(OperatorConfig& c, const std::string& v, std::string* error) {
  if (dns::ParseLogLevel(v, &c.log_level)) return true;
  *error = "bad log level \"" + v + "\" (debug, info, warn, error)";
  return false;
}

const std::vector<Flag>& Flags() {
  static const std::vector<Flag> flags = {
      {"config", "FILE", "",
       "YAML or JSON file of settings (keys are flag names)",
       Text(&OperatorConfig::config_file)},
      {"kubeconfig", "FILE", "",
       "kubeconfig to reach the apiserver (default: in-cluster, else "
       "$KUBECONFIG or ~/.kube/config)",
       Text(&OperatorConfig::kubeconfig)},
      {"namespace", "NS", "",
       "where the gslb.ax.io objects, the route-table ConfigMap and the "
       "Lease live (default: the pod's namespace, or the kubeconfig "
       "context's)",
       Text(&OperatorConfig::namespace_name)},
      {"route-table", "NAME", "ax-route-table",
       "the route-table ConfigMap's name (kept versions: NAME-v<version>)",
       SetRouteTable},
      {"history", "N", "5", "published versions kept for rollback", SetHistory},
      {"leader-elect", "", "true",
       "elect one writing replica through a Lease (off: this replica "
       "always writes)",
       Bool(&OperatorConfig::leader_elect), true},
      {"lease-name", "NAME", "ax-operator", "the leader election Lease",
       Text(&OperatorConfig::lease_name)},
      {"identity", "NAME", "",
       "this replica's name in the Lease (default: $POD_NAME, else the "
       "host name)",
       Text(&OperatorConfig::identity)},
      {"lease-duration", "DURATION", "15s",
       "how long a lease holds without renewal (whole seconds)",
       Duration(&OperatorConfig::lease_duration)},
      {"renew-deadline", "DURATION", "10s",
       "a leader that has not renewed for this long stops writing",
       Duration(&OperatorConfig::renew_deadline)},
      {"retry-period", "DURATION", "2s",
       "pause between attempts to acquire or renew the lease",
       Duration(&OperatorConfig::retry_period)},
      {"http-listen", "ADDR:PORT", "0.0.0.0:8082",
       "/metrics, /healthz, /readyz address; empty disables", SetHttpListen},
      {"resync", "DURATION", "30s",
       "plan the whole world again this often even without a change",
       Duration(&OperatorConfig::resync)},
      {"debounce", "DURATION", "100ms",
       "after a change, wait this long for more before planning",
       Duration(&OperatorConfig::debounce)},
      {"log-level", "LEVEL", "info", "debug, info, warn or error", SetLogLevel},
  };
  return flags;
}

const Flag* FindFlag(std::string_view name) {
  for (const Flag& f : Flags()) {
    if (name == f.name) return &f;
  }
  return nullptr;
}

std::string EnvName(std::string_view flag) {
  std::string name = "AX_OPERATOR_";
  for (char ch : flag) {
    name += ch == '-' ? '_' : static_cast<char>(std::toupper(ch));
  }
  return name;
}

// Flag name -> its value as text (the last one given wins).
using Source = std::map<std::string, std::string>;

bool ReadArgs(const std::vector<std::string>& args, Source* out, bool* help,
              std::string* error) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--help" || arg == "-h") {
      *help = true;
      continue;
    }
    if (arg.rfind("--", 0) != 0) {
      *error = "unexpected argument \"" + arg + "\" (see --help)";
      return false;
    }
    const size_t eq = arg.find('=');
    const std::string name =
        arg.substr(2, eq == std::string::npos ? eq : eq - 2);
    const Flag* flag = FindFlag(name);
    if (!flag) {
      *error = "unknown flag --" + name + " (see --help)";
      return false;
    }
    if (eq != std::string::npos) {
      (*out)[name] = arg.substr(eq + 1);
    } else if (flag->boolean) {
      (*out)[name] = "true";
    } else if (i + 1 < args.size()) {
      (*out)[name] = args[++i];
    } else {
      *error = "flag --" + name + " needs a value";
      return false;
    }
  }
  return true;
}

bool ReadFile(const std::string& path, Source* out, std::string* error) {
  dns::ConfigValues values;
  std::vector<dns::ZoneConfig> zones;
  const auto is_list = [](const std::string& key) -> std::optional<bool> {
    if (!FindFlag(key) || key == "config") return std::nullopt;
    return false;
  };
  if (!dns::ReadConfigFile(path, is_list, &values, &zones, error)) {
    return false;
  }
  if (!zones.empty()) {
    *error = "config file " + path + ": unknown key \"zones\"";
    return false;
  }
  for (auto& [key, v] : values) (*out)[key] = v.empty() ? "" : v.back();
  return true;
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
  Source cli, environment, file;
  if (!ReadArgs(args, &cli, &result.help, &result.error)) return result;
  if (result.help) {
    result.ok = true;
    return result;
  }
  for (const Flag& f : Flags()) {
    const auto it = env.find(EnvName(f.name));
    if (it != env.end()) environment[f.name] = it->second;
  }
  const Source& config_source = cli.count("config") ? cli : environment;
  if (const auto it = config_source.find("config");
      it != config_source.end() && !it->second.empty() &&
      !ReadFile(it->second, &file, &result.error)) {
    return result;
  }

  for (const Flag& f : Flags()) {
    const Source* from = cli.count(f.name)           ? &cli
                         : environment.count(f.name) ? &environment
                         : file.count(f.name)        ? &file
                                                     : nullptr;
    const std::string value = from ? from->at(f.name) : f.default_text;
    std::string error;
    if (!f.set(result.config, value, &error)) {
      result.error = "--" + std::string(f.name) + ": " + error;
      return result;
    }
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
  for (const Flag& f : Flags()) {
    std::string head = "  --" + std::string(f.name);
    if (!f.boolean) head += " " + std::string(f.arg);
    head.resize(std::max<size_t>(head.size() + 1, 30), ' ');
    text += head + f.help;
    if (*f.default_text) {
      text += " [default: " + std::string(f.default_text) + "]";
    }
    text += "\n";
  }
  return text;
}

}  // namespace ax::controller
