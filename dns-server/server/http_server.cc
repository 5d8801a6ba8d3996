// Handlers are small and read-only except rollback; the JSON shapes are
// documented in the README's ax-dns section.
#include "server/http_server.h"

#include <httplib.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "ax/ip.h"
#include "server/config_values.h"
#include "server/log.h"

namespace ax::dns {
namespace {

nlohmann::json InfoJson(const SnapshotInfo& info) {
  return {{"version", info.version},
          {"contentHash", info.content_hash},
          {"generatedAtMs", info.generated_at_ms},
          {"loadedAtMs", info.loaded_at_ms},
          {"source", info.source}};
}

nlohmann::json StatusJson(const StoreStatus& s) {
  nlohmann::json out = s.current ? InfoJson(*s.current) : nlohmann::json();
  nlohmann::json doc = {{"current", out},
                        {"rolledBack", s.rolled_back},
                        {"loads", s.loads},
                        {"errors", s.errors},
                        {"lastError", s.last_error},
                        {"lastErrorAtMs", s.last_error_at_ms}};
  doc["history"] = nlohmann::json::array();
  for (const SnapshotInfo& info : s.history) {
    doc["history"].push_back(InfoJson(info));
  }
  return doc;
}

void Reply(httplib::Response& res, int status, const nlohmann::json& body) {
  res.status = status;
  res.set_content(body.dump() + "\n", "application/json");
}

}  // namespace

HttpServer::HttpServer(SnapshotStore* store)
    : store_(store), server_(std::make_unique<httplib::Server>()) {}

HttpServer::~HttpServer() { Stop(); }

void HttpServer::Route() {
  server_->Get("/healthz", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("ok\n", "text/plain");
  });
  server_->Get(
      "/readyz", [this](const httplib::Request&, httplib::Response& res) {
        if (store_->Current()) {
          res.set_content("ready\n", "text/plain");
          return;
        }
        const StoreStatus s = store_->Status();
        res.status = 503;
        res.set_content(
            "not ready: no snapshot loaded yet" +
                (s.last_error.empty() ? "" : "; last error: " + s.last_error) +
                "\n",
            "text/plain");
      });
  server_->Get("/v1/snapshot",
               [this](const httplib::Request&, httplib::Response& res) {
                 Reply(res, 200, StatusJson(store_->Status()));
               });
  server_->Post("/v1/snapshot/rollback", [this](const httplib::Request& req,
                                                httplib::Response& res) {
    std::string error;
    bool ok = false;
    if (req.has_param("version")) {
      int64_t version = 0;
      if (!ParseInt(req.get_param_value("version"), 1, INT64_MAX, &version,
                    &error)) {
        Reply(res, 400, {{"error", "version: " + error}});
        return;
      }
      ok = store_->Rollback(static_cast<uint64_t>(version), &error);
    } else {
      ok = store_->Rollback(&error);
    }
    if (!ok) {
      Reply(res, 409, {{"error", error}});
      return;
    }
    Reply(res, 200, StatusJson(store_->Status()));
  });
}

bool HttpServer::Start(const Endpoint& at, std::string* error) {
  Route();
  const std::string host = FormatIp(at.ip);
  int port = at.port;
  if (port == 0) {
    port = server_->bind_to_any_port(host);
  } else if (!server_->bind_to_port(host, port)) {
    port = -1;
  }
  if (port <= 0) {
    *error = "http: cannot bind " + at.ToString();
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
  Log(LogLevel::kInfo, "http listening", {{"address", bound_.ToString()}});
  return true;
}

void HttpServer::Stop() {
  if (!thread_.joinable()) return;
  server_->stop();
  thread_.join();
}

}  // namespace ax::dns
