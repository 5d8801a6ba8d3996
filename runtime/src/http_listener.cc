// Binding and the serving thread of an httplib server, and its /metrics
// route (http_listener.h).
#include "ax/runtime/http_listener.h"

#include <httplib.h>

#include <algorithm>
#include <chrono>
#include <string>

#include "ax/ip.h"
#include "ax/runtime/bounded_workers.h"
#include "ax/runtime/log.h"
#include "ax/runtime/openmetrics.h"

namespace ax::runtime {
namespace {

// httplib's queue interface over BoundedWorkers.
class BoundedQueue : public httplib::TaskQueue {
 public:
  BoundedQueue(size_t threads, size_t max_queued)
      : workers_(threads, max_queued) {}
  void enqueue(std::function<void()> fn) override {
    workers_.Run(std::move(fn));
  }
  void shutdown() override { workers_.Shutdown(); }

 private:
  BoundedWorkers workers_;
};

}  // namespace

HttpListener::HttpListener(HttpLimits limits)
    : server_(std::make_unique<httplib::Server>()) {
  httplib::Server& s = *server_;
  s.set_payload_max_length(limits.max_body_bytes);
  s.set_read_timeout(limits.read_timeout);
  s.set_write_timeout(limits.write_timeout);
  s.set_keep_alive_timeout(limits.keep_alive_timeout.count());
  s.set_keep_alive_max_count(limits.keep_alive_requests);
  const size_t threads = std::max<size_t>(1, limits.threads);
  const size_t max_queued = limits.max_queued;
  s.new_task_queue = [threads, max_queued] {
    return new BoundedQueue(threads, max_queued);
  };
  // Runs after the headers, before the body is read: a large body is
  // refused without reading it (httplib alone would read and discard it).
  const size_t max_body = limits.max_body_bytes;
  s.set_pre_routing_handler([max_body](const httplib::Request& req,
                                       httplib::Response& res) {
    const bool chunked = req.has_header("Transfer-Encoding");
    // strtoull: a malformed length reads as 0 and fails in httplib later.
    const uint64_t length = req.get_header_value<uint64_t>("Content-Length");
    if (!chunked && length <= max_body) {
      return httplib::Server::HandlerResponse::Unhandled;
    }
    res.status = 413;
    res.set_header("Connection", "close");
    res.set_content("request body too large: at most " +
                        std::to_string(max_body) + " bytes, sent in full\n",
                    "text/plain");
    return httplib::Server::HandlerResponse::Handled;
  });
}

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
