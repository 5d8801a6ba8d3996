// One cpp-httplib server on its own thread: bind (port 0: a free port),
// serve, stop and join, with the limits every Ax HTTP server keeps (a body
// refused before it is read, timeouts, a fixed thread pool); and the one
// /metrics route every binary serves. Shared by every binary's operating
// endpoint, ax-dns's API and admin listeners and its HTTP redirector; other
// routes are the owner's.
#pragma once

#include <prometheus/metric_family.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "ax/runtime/net.h"

namespace httplib {
class Server;
}

namespace ax::runtime {

// No Ax endpoint takes a body beyond a few bytes, and a stranger may reach
// every listener: a body larger than max_body_bytes (or chunked, whose size
// is not known in advance) is answered 413 before any of it is read; a
// client silent for read_timeout is dropped; `threads` serve at most that
// many connections at once (a slow client holds one: liveness lives on a
// listener of its own for that reason), and at most `max_queued` wait for
// them (bounded_workers.h: beyond, accepting pauses).
struct HttpLimits {
  size_t max_body_bytes = 64 << 10;
  std::chrono::seconds read_timeout{5};
  std::chrono::seconds write_timeout{5};
  std::chrono::seconds keep_alive_timeout{5};
  size_t keep_alive_requests = 100;
  size_t threads = 4;
  size_t max_queued = 16;
};

class HttpListener {
 public:
  explicit HttpListener(HttpLimits limits = {});
  ~HttpListener();  // stops and joins
  HttpListener(const HttpListener&) = delete;
  HttpListener& operator=(const HttpListener&) = delete;

  // Routes are added here before Start.
  httplib::Server& server() { return *server_; }

  // GET /metrics: what `collect` returns at each scrape, as OpenMetrics or
  // Prometheus text by the Accept header (openmetrics.h).
  void ServeMetrics(
      std::function<std::vector<prometheus::MetricFamily>()> collect);

  // Binds `at` and serves on a background thread; logs "<name> listening".
  bool Start(const Endpoint& at, std::string_view name, std::string* error);
  void Stop();
  const Endpoint& bound() const { return bound_; }

 private:
  std::unique_ptr<httplib::Server> server_;
  Endpoint bound_;
  std::atomic<bool> listen_returned_{false};
  std::thread thread_;
};

}  // namespace ax::runtime
