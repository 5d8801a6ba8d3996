// One cpp-httplib server on its own thread: bind (port 0: a free port),
// serve, stop and join; and the one /metrics route every binary serves.
// Shared by every binary's operating endpoint and ax-dns's HTTP redirector;
// other routes are the owner's.
#pragma once

#include <prometheus/metric_family.h>

#include <atomic>
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

class HttpListener {
 public:
  HttpListener();
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
