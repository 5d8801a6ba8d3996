// Test helper: an HTTP server on 127.0.0.1 (a port the kernel picks) standing
// in for the apiserver where a suite needs exact control over answers, chunk
// boundaries or stalls; plus a client pointed at it. Register the routes on
// server() before Start(). The real apiserver is the integration suite's.
#pragma once

#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "ax/kube/client.h"
#include "wait_for.h"

namespace ax::kube::testing {

class FakeApiServer {
 public:
  FakeApiServer() {
    server_.set_tcp_nodelay(true);  // as the apiserver: no 40 ms Nagle stalls
    port_ = server_.bind_to_any_port("127.0.0.1");
  }
  ~FakeApiServer() {
    server_.stop();
    if (thread_.joinable()) thread_.join();
  }
  FakeApiServer(const FakeApiServer&) = delete;
  FakeApiServer& operator=(const FakeApiServer&) = delete;

  httplib::Server& server() { return server_; }
  int port() const { return port_; }

  // Returns once the accept loop runs: httplib's stop() before that point
  // would be lost and the destructor would wait forever.
  void Start() {
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    ASSERT_TRUE(::ax::testing::WaitFor([this] { return server_.is_running(); }))
        << "the fake apiserver did not start";
  }

  Config config() const {
    Config config;
    config.server = "http://127.0.0.1:" + std::to_string(port_);
    config.token = "test-token";
    return config;
  }

  std::unique_ptr<Client> NewClient(const ClientOptions& options = {}) const {
    auto client = Client::Create(config(), options);
    return client.ok() ? std::move(*client) : nullptr;
  }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
};

// What the server got, for assertions.
struct SeenRequest {
  std::string method;
  std::string path;
  std::string query;  // "k=v&..." as sent
  std::string content_type;
  std::string authorization;
  std::string body;
};

inline SeenRequest Seen(const httplib::Request& req) {
  std::string query;
  const size_t q = req.target.find('?');
  if (q != std::string::npos) query = req.target.substr(q + 1);
  return SeenRequest{req.method,
                     req.path,
                     query,
                     req.get_header_value("Content-Type"),
                     req.get_header_value("Authorization"),
                     req.body};
}

}  // namespace ax::kube::testing
