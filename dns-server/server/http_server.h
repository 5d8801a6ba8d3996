// The minimal HTTP surface of ax-dns (cpp-httplib): /healthz (the process is
// alive), /readyz (200 once a snapshot is served, 503 with the reason before),
// GET /v1/snapshot (what is served, what is kept, the last error) and
// POST /v1/snapshot/rollback[?version=N]. Issue 4 grows this surface here.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <thread>

#include "server/net.h"
#include "server/snapshot_store.h"

namespace httplib {
class Server;
}

namespace ax::dns {

class HttpServer {
 public:
  explicit HttpServer(SnapshotStore* store);
  ~HttpServer();  // stops and joins
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds `at` (port 0: a free port) and serves on a background thread.
  bool Start(const Endpoint& at, std::string* error);
  void Stop();
  const Endpoint& bound() const { return bound_; }

 private:
  void Route();

  SnapshotStore* const store_;
  std::unique_ptr<httplib::Server> server_;
  Endpoint bound_;
  std::atomic<bool> listen_returned_{false};
  std::thread thread_;
};

}  // namespace ax::dns
