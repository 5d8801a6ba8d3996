// ax-dns settings (the runtime flag system): one table of flags, each settable
// on the command line
// (--name VALUE / --name=VALUE), from the environment (AX_DNS_NAME, '-' as
// '_', lists comma-separated) and from a YAML/JSON config file (--config;
// keys are flag names, plus a `zones:` section of ZoneConfig fields).
// Precedence: flag > env > file > default. Pure: no sockets, no globals.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ax/runtime/log.h"
#include "ax/runtime/net.h"
#include "geo/geo_fields.h"
#include "geo/geo_precedence.h"
#include "responder/serving_state.h"

namespace ax::dns {

using Millis = std::chrono::milliseconds;

struct ServerConfig {
  std::string config_file;
  std::string standalone_dir;  // --standalone: manifests -> snapshot in process
  std::string snapshot_file;   // --snapshot: a snapshot document
  // --snapshot-configmap NAMESPACE/NAME: the route-table ConfigMap, watched
  // through the Kubernetes API with --kubeconfig (else in-cluster).
  std::string snapshot_configmap_namespace;
  std::string snapshot_configmap_name;
  std::string kubeconfig;
  std::vector<runtime::Endpoint> listen;  // UDP and TCP
  std::string http_listen;                // health and metrics; "" disables
  std::string api_listen;                 // explain, snapshot; "" disables
  std::string admin_listen;               // rollback; "" (default) disables
  std::string admin_token_file;           // bearer token; needed with admin
  std::string redirect_listen;            // "" disables the HTTP 302 redirector
  bool redirect_trust_xff = false;        // client from X-Forwarded-For
  std::string decision_log;               // "" off, "-" stderr, else a file
  double decision_log_sample = 0.01;
  std::vector<std::string> geo_db;  // in lookup order (dbip: v4, then v6)
  std::vector<std::string> asn_db;
  std::vector<std::string> ipdb;       // IPIP.net ipdb files
  std::vector<std::string> ip2region;  // ip2region v1 files
  GeoPrecedence geo_precedence;
  bool geo_cities = false;  // report cities (match.cities); costs table memory
  std::string geo_subdivisions;  // subdivision override table; "" built in
  GeoFieldPaths geo_paths;
  Millis geo_reload_interval{30'000};
  std::string geo_copy_dir;  // private copies of the geo files; "": none
  int workers = 0;           // UDP worker threads; 0: one per core
  int udp_batch = 64;
  int udp_rcvbuf = 4 << 20;
  int tcp_threads = 1;
  Millis tcp_idle_timeout{10'000};
  Millis tcp_message_timeout{5'000};
  int tcp_max_connections = 1000;
  int tcp_max_connections_per_source = 100;
  uint32_t tcp_max_queries = 10'000;
  size_t tcp_max_buffered = size_t{32} << 20;
  bool rrl = true;
  // Standalone: probe nodes with a healthCheck in process.
  bool probe = true;
  std::string probe_ca;         // PEM bundle for HTTPS checks; "": system
  bool probe_insecure = false;  // HTTPS checks accept any certificate
  std::string probe_token_dir;  // tokens: <dir>/<healthCheck.tokenSecretRef>
  // Standalone: other vantages' ProbeReport files (report_files.h).
  std::string probe_reports_dir;
  uint32_t rrl_rate = 0;  // answers per (prefix, name, type, client subnet)
  uint32_t rrl_nxdomain_rate = 0;  // NXDOMAIN per (prefix, zone)
  uint32_t rrl_error_rate = 0;     // errors per prefix
  uint32_t rrl_burst = 0;
  uint32_t rrl_slip = 0;
  uint32_t rrl_sample = 0;  // RrlOptions::sample
  std::string identity;     // CHAOS id.server; the host name by default
  uint16_t edns_udp_size = 1232;
  std::vector<ZoneConfig> zones;
  Millis rebuild_interval{10'000};
  Millis reload_debounce{200};
  int snapshot_history = 5;
  runtime::LogLevel log_level = runtime::LogLevel::kInfo;
};

struct ConfigResult {
  bool ok = false;
  bool help = false;  // --help was asked for: print HelpText(), exit 0
  std::string error;  // when !ok: what to tell the user (exit 2)
  ServerConfig config;
};

// `args` excludes the program name. `env` is the process environment (only
// AX_DNS_* keys are read); the config file is read from disk when named.
ConfigResult ParseConfig(const std::vector<std::string>& args,
                         const std::map<std::string, std::string>& env);

// Every flag with its default and meaning, for --help.
std::string HelpText();

}  // namespace ax::dns
