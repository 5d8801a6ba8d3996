// One cpp-httplib server on its own thread: bind (port 0: a free port),
// serve, stop and join. Shared by the operating endpoint (HttpServer) and the
// HTTP redirector; routes are the owner's.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <string_view>
#include <thread>

#include "server/net.h"

namespace httplib {
class Server;
}

namespace ax::dns {

class HttpListener {
 public:
  HttpListener();
  ~HttpListener();  // stops and joins
  HttpListener(const HttpListener&) = delete;
  HttpListener& operator=(const HttpListener&) = delete;

  // Routes are added here before Start.
  httplib::Server& server() { return *server_; }

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

}  // namespace ax::dns
