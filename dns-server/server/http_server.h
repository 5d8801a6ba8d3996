// The HTTP surfaces of ax-dns (cpp-httplib), one listener each so that who
// may reach one does not decide about another: operating (/healthz: the
// process is alive; /readyz: 200 once a snapshot is served, 503 with the
// reason before; /metrics: Prometheus text, or OpenMetrics when asked), the
// read-only API (/v1/explain: why a client gets its answer; /v1/endpoints:
// the ranked endpoints for proxies, with a long poll for the next version;
// GET /v1/snapshot: what is served, what is kept, the last error) and admin
// (POST /v1/snapshot/rollback[?version=N], behind a bearer token, off by
// default).
#pragma once

#include <optional>
#include <string>

#include "ax/runtime/http_listener.h"
#include "ax/runtime/net.h"
#include "geo/geo_store.h"
#include "server/metrics.h"
#include "server/snapshot_store.h"
#include "server/version_watch.h"

namespace ax::dns {

// The API listener's threads, and how many of them long polls for a new
// route table (/v1/endpoints?wait=) may hold: the rest answer explain and
// the other reads.
inline constexpr size_t kApiThreads = 16;
inline constexpr size_t kApiWatchers = 8;

struct HttpSources {
  SnapshotStore* store = nullptr;
  const GeoStore* geo = nullptr;  // null: no geo databases
  const Metrics* metrics = nullptr;
  VersionWatch* watch = nullptr;  // null: wait= is refused
};

// Where each surface listens; unset: not served.
struct HttpEndpoints {
  std::optional<runtime::Endpoint> operating;  // --http-listen
  std::optional<runtime::Endpoint> api;        // --api-listen
  std::optional<runtime::Endpoint> admin;      // --admin-listen
  // With `admin` (the config refuses it without one; an unreadable or empty
  // file lets nobody in).
  std::string admin_token_file;
};

class HttpServer {
 public:
  explicit HttpServer(HttpSources sources);

  // Binds each endpoint set (port 0: a free port) and serves each on its own
  // threads.
  bool Start(const HttpEndpoints& at, std::string* error);
  void Stop();
  const runtime::Endpoint& operating() const { return operating_.bound(); }
  const runtime::Endpoint& api() const { return api_.bound(); }
  const runtime::Endpoint& admin() const { return admin_.bound(); }

 private:
  void RouteOperating();
  void RouteApi();
  void RouteAdmin(const std::string& token_file);

  const HttpSources sources_;
  // Probes and scrapes only: few threads, short requests.
  runtime::HttpListener operating_{runtime::HttpLimits{.threads = 2}};
  runtime::HttpListener api_{runtime::HttpLimits{.threads = kApiThreads}};
  runtime::HttpListener admin_{runtime::HttpLimits{.threads = 2}};
};

}  // namespace ax::dns
