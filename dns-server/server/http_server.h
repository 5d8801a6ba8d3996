// The operating HTTP surface of ax-dns (cpp-httplib): /healthz (the process is
// alive), /readyz (200 once a snapshot is served, 503 with the reason before),
// /metrics (Prometheus text, or OpenMetrics when asked), /v1/explain (why a
// client gets its answer), GET /v1/snapshot (what is served, what is kept, the
// last error) and POST /v1/snapshot/rollback[?version=N].
#pragma once

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

class HttpServer {
 public:
  explicit HttpServer(HttpSources sources) : sources_(sources) {}

  // Binds `at` (port 0: a free port) and serves on a background thread.
  bool Start(const runtime::Endpoint& at, std::string* error);
  void Stop() { listener_.Stop(); }
  const runtime::Endpoint& bound() const { return listener_.bound(); }

 private:
  void Route();

  const HttpSources sources_;
  runtime::HttpListener listener_;
};

}  // namespace ax::dns
