// The ax-probe flag table and the precedence resolution. As in ax-dns, each
// default is text run through the same setter as user input, so --help and
// the behaviour cannot disagree; the value parsers are ax-dns's.
#include "sidecar/config.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <optional>
#include <utility>

#include "responder/serving_state.h"
#include "server/config_file.h"
#include "server/config_values.h"
#include "server/net.h"

namespace ax::probe {
namespace {

using Setter = std::function<bool(SidecarConfig&, const std::string& value,
                                  std::string* error)>;

struct Flag {
  const char* name;
  const char* arg;           // what the value is, for --help ("" for bool)
  const char* default_text;  // shown in --help and applied first
  const char* help;
  Setter set;
  bool boolean = false;  // takes no value on the command line
};

Setter Text(std::string SidecarConfig::*field) {
  return [=](SidecarConfig& c, const std::string& v, std::string*) {
    c.*field = v;
    return true;
  };
}
Setter Duration(std::chrono::milliseconds SidecarConfig::*field) {
  return [=](SidecarConfig& c, const std::string& v, std::string* e) {
    if (!dns::ParseDuration(v, &(c.*field), e)) return false;
    if ((c.*field).count() > 0) return true;
    *e = "must be longer than 0";
    return false;
  };
}
Setter Bool(bool SidecarConfig::*field) {
  return [=](SidecarConfig& c, const std::string& v, std::string* e) {
    return dns::ParseBool(v, &(c.*field), e);
  };
}

bool SetHttpListen(SidecarConfig& c, const std::string& v, std::string* error) {
  dns::Endpoint at;
  if (!v.empty() && !dns::ParseEndpoint(v, &at, error)) return false;
  c.http_listen = v;
  return true;
}

bool SetVantage(SidecarConfig& c, const std::string& v, std::string*) {
  c.vantage = v;
  if (c.vantage.empty()) {
    char host[256] = {};
    ::gethostname(host, sizeof(host) - 1);
    c.vantage = host;
  }
  return true;
}

bool SetLogLevel(SidecarConfig& c, const std::string& v, std::string* error) {
  if (dns::ParseLogLevel(v, &c.log_level)) return true;
  *error = "bad log level \"" + v + "\" (debug, info, warn, error)";
  return false;
}

const std::vector<Flag>& Flags() {
  static const std::vector<Flag> flags = {
      {"config", "FILE", "",
       "YAML or JSON file of settings (keys are flag names)",
       Text(&SidecarConfig::config_file)},
      {"manifests", "DIR", "",
       "probe the Nodes with a healthCheck in the YAML manifests in DIR "
       "(re-read on change)",
       Text(&SidecarConfig::manifests_dir)},
      {"vantage", "NAME", "",
       "this prober's name in reports and metrics (default: the host name)",
       SetVantage},
      {"report", "FILE", "-",
       "write the ProbeReport JSON to FILE (atomically replaced), - for "
       "stdout (one JSON per line); empty: no report",
       Text(&SidecarConfig::report)},
      {"report-api", "", "false",
       "also write the ProbeReport through the Kubernetes API (server-side "
       "apply; owned by the pod given POD_NAME and POD_UID)",
       Bool(&SidecarConfig::report_api), true},
      {"kubeconfig", "FILE", "",
       "--report-api: kubeconfig to reach the API (default: $KUBECONFIG, "
       "in-cluster, ~/.kube/config)",
       Text(&SidecarConfig::kubeconfig)},
      {"namespace", "NS", "",
       "--report-api: the report's namespace (default: the kubeconfig's or "
       "the pod's)",
       Text(&SidecarConfig::namespace_name)},
      {"heartbeat", "DURATION", "10s",
       "rewrite the report this often even without a health change",
       Duration(&SidecarConfig::heartbeat)},
      {"http-listen", "ADDR:PORT", "0.0.0.0:8081",
       "/metrics, /healthz, /readyz address; empty disables", SetHttpListen},
      {"probe-ca", "FILE", "",
       "PEM CA bundle HTTPS health checks verify against (default: system)",
       Text(&SidecarConfig::probe_ca)},
      {"probe-insecure", "", "false",
       "HTTPS health checks accept any certificate",
       Bool(&SidecarConfig::probe_insecure), true},
      {"probe-token-dir", "DIR", "",
       "probe tokens: the file DIR/<healthCheck.tokenSecretRef>",
       Text(&SidecarConfig::probe_token_dir)},
      {"reload-debounce", "DURATION", "200ms",
       "wait this long after a manifest change",
       Duration(&SidecarConfig::reload_debounce)},
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
  std::string name = "AX_PROBE_";
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

}  // namespace

SidecarConfigResult ParseSidecarConfig(
    const std::vector<std::string>& args,
    const std::map<std::string, std::string>& env) {
  SidecarConfigResult result;
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
  for (auto [key, field] : {std::pair{"POD_NAME", &SidecarConfig::pod_name},
                            std::pair{"POD_UID", &SidecarConfig::pod_uid}}) {
    if (const auto it = env.find(key); it != env.end()) {
      result.config.*field = it->second;
    }
  }
  if (result.config.manifests_dir.empty()) {
    result.error = "--manifests DIR is required (see --help)";
    return result;
  }
  result.ok = true;
  return result;
}

std::string SidecarHelpText() {
  std::string text =
      "usage: ax-probe --manifests DIR [flags]\n\n"
      "Health prober for Ax: probes every Node with a healthCheck from one\n"
      "vantage and writes a ProbeReport (on every health change and as a\n"
      "heartbeat). Every flag is also read from the environment as\n"
      "AX_PROBE_<FLAG> and from the --config file; precedence: flag > env >\n"
      "file > default.\n\nflags:\n";
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

}  // namespace ax::probe
