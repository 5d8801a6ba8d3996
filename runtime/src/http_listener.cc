// Binding and the serving thread of an httplib server, and its /metrics
// route (http_listener.h).
#include "ax/runtime/http_listener.h"

#include <httplib.h>

#include <chrono>

#include "ax/ip.h"
#include "ax/runtime/log.h"
#include "ax/runtime/openmetrics.h"

namespace ax::runtime {

HttpListener::HttpListener() : server_(std::make_unique<httplib::Server>()) {}

HttpListener::~HttpListener() { Stop(); }

bool HttpListener::Start(const Endpoint& at, std::string_view name,
                         std::string* error) {
  const std::string host = FormatIp(at.ip);
  int port = at.port;
  if (port == 0) {
    port = server_->bind_to_any_port(host);
  } else if (!server_->bind_to_port(host, port)) {
    port = -1;
  }
  if (port <= 0) {
    *error = std::string(name) + ": cannot bind " + at.ToString();
    return false;
  }
  bound_ = at;
  bound_.port = static_cast<uint16_t>(port);
  thread_ = std::thread([this] {
    server_->listen_after_bind();
    listen_returned_ = true;
  });
  // httplib's stop() does nothing until the loop runs: wait for it, so that a
  // Stop() right after Start() cannot leave the thread accepting forever.
  while (!server_->is_running() && !listen_returned_.load()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  Log(LogLevel::kInfo, std::string(name) + " listening",
      {{"address", bound_.ToString()}});
  return true;
}

void HttpListener::ServeMetrics(
    std::function<std::vector<prometheus::MetricFamily>()> collect) {
  server_->Get("/metrics",
               [collect = std::move(collect)](const httplib::Request& req,
                                              httplib::Response& res) {
                 const MetricsPage page =
                     RenderMetrics(collect(), req.get_header_value("Accept"));
                 res.set_content(page.body, page.content_type);
               });
}

void HttpListener::Stop() {
  if (!thread_.joinable()) return;
  server_->stop();
  thread_.join();
}

}  // namespace ax::runtime
