// The flag table and the precedence resolution. Each flag's default is text
// run through the same setter as user input, so --help and the behaviour can
// never disagree.
#include "server/config.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <optional>

#include "server/config_file.h"
#include "server/config_values.h"

namespace ax::dns {
namespace {

using Values = std::vector<std::string>;
using Setter =
    std::function<bool(ServerConfig&, const Values&, std::string* error)>;

struct Flag {
  const char* name;
  const char* arg;           // what the value is, for --help ("" for bool)
  const char* default_text;  // shown in --help and applied first
  const char* help;
  Setter set;
  bool list = false;     // repeatable; env and file take comma lists/sequences
  bool boolean = false;  // takes no value on the command line
};

template <typename T>
Setter Int(T ServerConfig::*field, int64_t min, int64_t max) {
  return [=](ServerConfig& c, const Values& v, std::string* e) {
    int64_t n = 0;
    if (!ParseInt(v.back(), min, max, &n, e)) return false;
    c.*field = static_cast<T>(n);
    return true;
  };
}
Setter Text(std::string ServerConfig::*field) {
  return [=](ServerConfig& c, const Values& v, std::string*) {
    c.*field = v.back();
    return true;
  };
}
Setter Duration(Millis ServerConfig::*field) {
  return [=](ServerConfig& c, const Values& v, std::string* e) {
    return ParseDuration(v.back(), &(c.*field), e);
  };
}
Setter Bool(bool ServerConfig::*field, bool negate = false) {
  return [=](ServerConfig& c, const Values& v, std::string* e) {
    bool b = false;
    if (!ParseBool(v.back(), &b, e)) return false;
    c.*field = negate ? !b : b;
    return true;
  };
}
Setter TextList(std::vector<std::string> ServerConfig::*field) {
  return [=](ServerConfig& c, const Values& values, std::string*) {
    (c.*field).clear();
    for (const std::string& v : values) {
      if (!v.empty()) (c.*field).push_back(v);
    }
    return true;
  };
}

bool SetListen(ServerConfig& c, const Values& values, std::string* error) {
  c.listen.clear();
  for (const std::string& text : values) {
    Endpoint e;
    if (!ParseEndpoint(text, &e, error)) return false;
    c.listen.push_back(e);
  }
  return true;
}

// An optional ADDR:PORT, checked here and parsed again where it is bound.
Setter EndpointText(std::string ServerConfig::*field) {
  return [=](ServerConfig& c, const Values& v, std::string* e) {
    Endpoint at;
    if (!v.back().empty() && !ParseEndpoint(v.back(), &at, e)) return false;
    c.*field = v.back();
    return true;
  };
}

bool SetSample(ServerConfig& c, const Values& v, std::string* error) {
  char* end = nullptr;
  const double share = std::strtod(v.back().c_str(), &end);
  if (v.back().empty() || *end != '\0' || !(share >= 0 && share <= 1)) {
    *error = "\"" + v.back() + "\" is not a share between 0 and 1";
    return false;
  }
  c.decision_log_sample = share;
  return true;
}

bool SetRcvbuf(ServerConfig& c, const Values& v, std::string* error) {
  int64_t bytes = 0;
  if (!ParseByteSize(v.back(), &bytes, error)) return false;
  c.udp_rcvbuf = static_cast<int>(bytes);
  return true;
}

bool SetGeoSchema(ServerConfig& c, const Values& v, std::string* error) {
  const std::optional<GeoFieldPaths> paths = GeoFieldPathsForSchema(v.back());
  if (!paths) {
    *error = "unknown geo schema \"" + v.back() + "\" (geoip2 or dbip)";
    return false;
  }
  c.geo_paths = *paths;
  return true;
}

// Applied after --geo-schema (table order): overrides single fields.
bool SetGeoFields(ServerConfig& c, const Values& values, std::string* error) {
  for (const std::string& assignment : values) {
    if (!assignment.empty() && !SetFieldPath(c.geo_paths, assignment, error)) {
      return false;
    }
  }
  return true;
}

// NAMESPACE/NAME, both parts non-empty.
bool SetConfigMap(ServerConfig& c, const Values& v, std::string* error) {
  const std::string& text = v.back();
  c.snapshot_configmap_namespace.clear();
  c.snapshot_configmap_name.clear();
  if (text.empty()) return true;
  const size_t slash = text.find('/');
  if (slash == 0 || slash == std::string::npos || slash + 1 == text.size() ||
      text.find('/', slash + 1) != std::string::npos) {
    *error = "\"" + text + "\" is not NAMESPACE/NAME";
    return false;
  }
  c.snapshot_configmap_namespace = text.substr(0, slash);
  c.snapshot_configmap_name = text.substr(slash + 1);
  return true;
}

bool SetIdentity(ServerConfig& c, const Values& v, std::string*) {
  c.identity = v.back();
  if (c.identity.empty()) {
    char host[256] = {};
    ::gethostname(host, sizeof(host) - 1);
    c.identity = host;
  }
  return true;
}

bool SetLogLevel(ServerConfig& c, const Values& v, std::string* error) {
  if (ParseLogLevel(v.back(), &c.log_level)) return true;
  *error = "bad log level \"" + v.back() + "\" (debug, info, warn, error)";
  return false;
}

// --zone ZONE[=NS[@ADDR]...]: serve ZONE; each repetition with a name server
// adds it to ZONE's NS list, replacing the list the config file's `zones:`
// section gave ZONE (flag > file). Fields left out stay empty:
// ServingState::Make gives them the defaults.
bool SetZones(ServerConfig& c, const Values& values, std::string* error) {
  std::vector<bool> ns_replaced(c.zones.size(), false);  // the file's zones
  for (const std::string& text : values) {
    const size_t eq = text.find('=');
    const std::string name = ZoneName(text.substr(0, eq));
    if (name.empty()) continue;
    auto zone =
        std::find_if(c.zones.begin(), c.zones.end(),
                     [&](const ZoneConfig& z) { return z.name == name; });
    if (zone == c.zones.end()) zone = c.zones.insert(zone, {.name = name});
    if (eq == std::string::npos) continue;
    NameServer ns;
    if (!ParseNameServer(std::string_view(text).substr(eq + 1), &ns, error)) {
      *error = "zone " + name + ": " + *error;
      return false;
    }
    const size_t index = static_cast<size_t>(zone - c.zones.begin());
    if (index < ns_replaced.size() && !ns_replaced[index]) {
      zone->ns.clear();
      ns_replaced[index] = true;
    }
    zone->ns.push_back(std::move(ns));
  }
  return true;
}

const std::vector<Flag>& Flags() {
  static const std::vector<Flag> flags = {
      {"config", "FILE", "",
       "YAML or JSON file of settings (keys are flag names)",
       Text(&ServerConfig::config_file)},
      {"standalone", "DIR", "",
       "serve the manifests in DIR (re-read on change)",
       Text(&ServerConfig::standalone_dir)},
      {"snapshot", "PATH", "",
       "serve the snapshot document at PATH (watched): a file (gzip when it "
       "ends in .gz) or a mounted route-table ConfigMap directory",
       Text(&ServerConfig::snapshot_file)},
      {"snapshot-configmap", "NAMESPACE/NAME", "",
       "serve the route-table ConfigMap NAMESPACE/NAME, watched through the "
       "Kubernetes API",
       SetConfigMap},
      {"kubeconfig", "FILE", "",
       "--snapshot-configmap: kubeconfig to reach the API (default: "
       "$KUBECONFIG, in-cluster, ~/.kube/config)",
       Text(&ServerConfig::kubeconfig)},
      {"listen", "ADDR:PORT", "0.0.0.0:53",
       "UDP+TCP address ADDR:PORT or [V6]:PORT", SetListen, true},
      {"http-listen", "ADDR:PORT", "0.0.0.0:8080",
       "/healthz, /readyz, /metrics, /v1/explain, /v1/snapshot address; "
       "empty disables",
       Text(&ServerConfig::http_listen)},
      {"redirect-listen", "ADDR:PORT", "",
       "HTTP 302 redirector address; empty disables",
       EndpointText(&ServerConfig::redirect_listen)},
      {"redirect-trust-xff", "", "false",
       "redirector: client address from X-Forwarded-For (behind your own "
       "proxy only)",
       Bool(&ServerConfig::redirect_trust_xff), false, true},
      {"decision-log", "FILE", "",
       "JSON lines of sampled GSLB decisions to FILE, - for stderr; empty: off",
       Text(&ServerConfig::decision_log)},
      {"decision-log-sample", "SHARE", "0.01",
       "share of decisions the decision log records (0..1)", SetSample},
      {"geo-db", "FILE", "", "geo MMDB file; repeat for several (dbip: v4, v6)",
       TextList(&ServerConfig::geo_db), true},
      {"asn-db", "FILE", "", "ASN MMDB file; repeatable",
       TextList(&ServerConfig::asn_db), true},
      {"geo-schema", "NAME", "geoip2",
       "field layout of the geo files: geoip2 or dbip", SetGeoSchema},
      {"geo-field", "FIELD=PATH", "",
       "override one field path, FIELD=PATH (country, subdivision, latitude, "
       "longitude, asn), e.g. country=country_code",
       SetGeoFields, true},
      {"geo-subdivisions", "FILE", "",
       "subdivision name table overriding the built-in",
       Text(&ServerConfig::geo_subdivisions)},
      {"geo-reload-interval", "DURATION", "30s",
       "how often geo files are checked",
       Duration(&ServerConfig::geo_reload_interval)},
      {"workers", "N", "0",
       "UDP worker threads per listen address; 0: one per core",
       Int(&ServerConfig::workers, 0, 1024)},
      {"udp-batch", "N", "64", "datagrams per recvmmsg/sendmmsg",
       Int(&ServerConfig::udp_batch, 1, 1024)},
      {"udp-rcvbuf", "BYTES", "4MiB", "SO_RCVBUF of each UDP socket",
       SetRcvbuf},
      {"tcp-threads", "N", "1", "TCP event-loop threads",
       Int(&ServerConfig::tcp_threads, 1, 64)},
      {"tcp-idle-timeout", "DURATION", "10s",
       "close TCP connections idle this long",
       Duration(&ServerConfig::tcp_idle_timeout)},
      {"tcp-message-timeout", "DURATION", "5s",
       "close TCP connections that take longer to send one message",
       Duration(&ServerConfig::tcp_message_timeout)},
      {"tcp-max-connections", "N", "1000",
       "TCP connections; excess ones closed",
       Int(&ServerConfig::tcp_max_connections, 1, 1'000'000)},
      {"rrl-rate", "N", "1000", "responses per second per client prefix",
       Int(&ServerConfig::rrl_rate, 1, 1'000'000)},
      {"rrl-burst", "N", "0", "responses allowed back to back; 0: one second's",
       Int(&ServerConfig::rrl_burst, 0, 1'000'000)},
      {"rrl-slip", "N", "2",
       "every Nth limited response is sent truncated; 0 none",
       Int(&ServerConfig::rrl_slip, 0, 100)},
      {"no-rrl", "", "false", "turn response rate limiting off",
       Bool(&ServerConfig::rrl, true), false, true},
      {"no-probe", "", "false",
       "standalone: do not probe nodes; every node counts Up by adminState",
       Bool(&ServerConfig::probe, true), false, true},
      {"probe-ca", "FILE", "",
       "PEM CA bundle HTTPS health checks verify against (default: system)",
       Text(&ServerConfig::probe_ca)},
      {"probe-insecure", "", "false",
       "HTTPS health checks accept any certificate",
       Bool(&ServerConfig::probe_insecure), false, true},
      {"probe-token-dir", "DIR", "",
       "probe tokens: the file DIR/<healthCheck.tokenSecretRef>",
       Text(&ServerConfig::probe_token_dir)},
      {"identity", "NAME", "",
       "CHAOS id.server answer (default: the host name)", SetIdentity},
      {"edns-udp-size", "BYTES", "1232",
       "EDNS UDP size advertised and sent at most",
       Int(&ServerConfig::edns_udp_size, 512, 4096)},
      {"zone", "ZONE[=NS[@ADDR]...]", "",
       "serve ZONE (default: the domains' zones); =NS[@ADDR]... adds a name "
       "server, with addresses if inside ZONE (none: ns1.ZONE, no address)",
       SetZones, true},
      {"rebuild-interval", "DURATION", "10s",
       "standalone: rebuild this often (rule expiry, failover windows)",
       Duration(&ServerConfig::rebuild_interval)},
      {"reload-debounce", "DURATION", "200ms",
       "wait this long after a file change",
       Duration(&ServerConfig::reload_debounce)},
      {"snapshot-history", "N", "5", "snapshots kept for rollback",
       Int(&ServerConfig::snapshot_history, 1, 1000)},
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
  std::string name = "AX_DNS_";
  for (char ch : flag) {
    name += ch == '-' ? '_' : static_cast<char>(std::toupper(ch));
  }
  return name;
}

Values SplitList(const std::string& text) {
  Values out;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    if (comma > start) out.push_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

using Source = ConfigValues;

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
    std::string value;
    if (eq != std::string::npos) {
      value = arg.substr(eq + 1);
    } else if (flag->boolean) {
      value = "true";
    } else if (i + 1 < args.size()) {
      value = args[++i];
    } else {
      *error = "flag --" + name + " needs a value";
      return false;
    }
    Values& values = (*out)[name];
    if (!flag->list) values.clear();
    values.push_back(value);
  }
  return true;
}

void ReadEnv(const std::map<std::string, std::string>& env, Source* out) {
  for (const Flag& f : Flags()) {
    const auto it = env.find(EnvName(f.name));
    if (it == env.end()) continue;
    (*out)[f.name] = f.list ? SplitList(it->second) : Values{it->second};
  }
}

}  // namespace

ConfigResult ParseConfig(const std::vector<std::string>& args,
                         const std::map<std::string, std::string>& env) {
  ConfigResult result;
  Source cli, environment, file;
  if (!ReadArgs(args, &cli, &result.help, &result.error)) return result;
  if (result.help) {
    result.ok = true;
    return result;
  }
  ReadEnv(env, &environment);
  const Source* config_source = cli.count("config") ? &cli : &environment;
  if (config_source->count("config")) {
    const std::string& path = config_source->at("config").back();
    const auto is_list = [](const std::string& key) -> std::optional<bool> {
      const Flag* flag = FindFlag(key);
      if (!flag || key == "config") return std::nullopt;
      return flag->list;
    };
    if (!ReadConfigFile(path, is_list, &file, &result.config.zones,
                        &result.error)) {
      return result;
    }
  }

  ServerConfig& c = result.config;
  for (const Flag& f : Flags()) {
    const Source* from = cli.count(f.name)           ? &cli
                         : environment.count(f.name) ? &environment
                         : file.count(f.name)        ? &file
                                                     : nullptr;
    const Values values =
        from ? from->at(f.name)
             : (f.list ? SplitList(f.default_text) : Values{f.default_text});
    std::string error;
    if (!f.set(c, values.empty() ? Values{""} : values, &error)) {
      result.error = "--" + std::string(f.name) + ": " + error;
      return result;
    }
  }

  const int sources = !c.standalone_dir.empty() + !c.snapshot_file.empty() +
                      !c.snapshot_configmap_name.empty();
  if (sources != 1) {
    result.error =
        "give exactly one of --standalone DIR, --snapshot PATH or "
        "--snapshot-configmap NAMESPACE/NAME (see --help)";
    return result;
  }
  if (c.listen.empty()) {
    result.error = "--listen: at least one address is needed";
    return result;
  }
  if (!c.http_listen.empty()) {
    Endpoint e;
    std::string error;
    if (!ParseEndpoint(c.http_listen, &e, &error)) {
      result.error = "--http-listen: " + error;
      return result;
    }
  }
  result.ok = true;
  return result;
}

std::string HelpText() {
  std::string text =
      "usage: ax-dns (--standalone DIR | --snapshot PATH |\n"
      "               --snapshot-configmap NAMESPACE/NAME) [flags]\n\n"
      "Authoritative GSLB DNS server. Every flag is also read from the\n"
      "environment as AX_DNS_<FLAG> (lists comma-separated) and from the\n"
      "--config file; precedence: flag > env > file > default.\n"
      "\"...\" marks a repeatable flag.\n\nflags:\n";
  for (const Flag& f : Flags()) {
    std::string head = "  --" + std::string(f.name);
    if (!f.boolean) head += " " + std::string(f.arg);
    if (f.list) head += " ...";
    head.resize(std::max<size_t>(head.size() + 1, 36), ' ');
    text += head + f.help;
    if (*f.default_text)
      text += " [default: " + std::string(f.default_text) + "]";
    text += "\n";
  }
  return text;
}

}  // namespace ax::dns
