// The HTTP surfaces of ax-dns (cpp-httplib), one listener each so that who
// may reach one does not decide about another: operating (/healthz: the
// process is alive; /readyz: 200 once a snapshot is served, 503 with the
// reason before; /metrics: Prometheus text, or OpenMetrics when asked), the
// read-only API (/v1/explain: why a client gets its answer; GET /v1/snapshot:
// what is served, what is kept, the last error) and admin (POST
// /v1/snapshot/rollback[?version=N], behind a bearer token, off by default).
#pragma once

#include <optional>
#include <string>

#include "ax/runtime/http_listener.h"
#include "ax/runtime/net.h"
#include "geo/geo_store.h"
#include "server/metrics.h"
#include "server/snapshot_store.h"

namespace ax::dns {

struct HttpSources {
  SnapshotStore* store = nullptr;
  const GeoStore* geo = nullptr;  // null: no geo databases
  const Metrics* metrics = nullptr;
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
  runtime::HttpListener api_{runtime::HttpLimits{.threads = 8}};
  runtime::HttpListener admin_{runtime::HttpLimits{.threads = 2}};
};

}  // namespace ax::dns
