// Handlers are small and read-only except rollback, which is the admin
// listener's alone and checks the bearer token first; the JSON shapes are
// documented in the README's ax-dns section.
#include "server/http_server.h"

#include <httplib.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <nlohmann/json.hpp>
#include <optional>

#include "ax/ip.h"
#include "ax/json_text.h"
#include "ax/runtime/bearer_token.h"
#include "ax/runtime/clock.h"
#include "ax/runtime/config_values.h"
#include "ax/runtime/log.h"
#include "server/endpoints_handler.h"
#include "server/explain_handler.h"

namespace ax::dns {
namespace {

// RFC 3339 UTC with milliseconds: "2026-05-01T12:00:00.123Z".
std::string Rfc3339(int64_t ms) {
  const std::time_t seconds = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char buf[40];
  const size_t n = std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
  std::snprintf(buf + n, sizeof(buf) - n, ".%03dZ",
                static_cast<int>(ms % 1000));
  return buf;
}

nlohmann::json InfoJson(const SnapshotInfo& info, int64_t now_ms) {
  return {
      {"version", info.version},
      {"contentHash", info.content_hash},
      {"generatedAtMs", info.generated_at_ms},
      {"loadedAtMs", info.loaded_at_ms},
      {"loadedAt", Rfc3339(info.loaded_at_ms)},
      {"ageSeconds", static_cast<double>(now_ms - info.loaded_at_ms) / 1000.0},
      {"source", info.source}};
}

// The served snapshot's identity at the top (null before the first load),
// its full record under "current", and what is kept for rollback.
nlohmann::json StatusJson(const StoreStatus& s) {
  const int64_t now = runtime::WallMs();
  nlohmann::json out = s.current ? InfoJson(*s.current, now) : nlohmann::json();
  nlohmann::json doc = {
      {"version", out.value("version", nlohmann::json())},
      {"contentHash", out.value("contentHash", nlohmann::json())},
      {"loadedAt", out.value("loadedAt", nlohmann::json())},
      {"ageSeconds", out.value("ageSeconds", nlohmann::json())},
      {"current", out},
      {"rolledBack", s.rolled_back},
      {"loads", s.loads},
      {"errors", s.errors},
      {"lastError", s.last_error},
      {"lastErrorAtMs", s.last_error_at_ms}};
  doc["history"] = nlohmann::json::array();
  for (const SnapshotInfo& info : s.history) {
    doc["history"].push_back(InfoJson(info, now));
  }
  return doc;
}

void Reply(httplib::Response& res, int status, const nlohmann::json& body) {
  res.status = status;
  // Bodies echo request bytes (a path, a parameter): never a throw on them.
  res.set_content(JsonText(body) + "\n", "application/json");
}

// A 404 that says which listener serves the path: the API left the operating
// listener (issue 15), so an old URL gets a pointer rather than silence.
httplib::Server::Handler ServedOn(std::string where) {
  return [where = std::move(where)](const httplib::Request& req,
                                    httplib::Response& res) {
    Reply(res, 404, {{"error", req.path + " is served on " + where}});
  };
}

constexpr std::chrono::seconds kDefaultWait{30};
constexpr std::chrono::seconds kMaxWait{60};

// wait=VERSION[&timeout=DURATION] holds the request while VERSION is served
// (at most the timeout: 30 s, up to 60 s), then it is answered with what is
// served; a client polls again with the version it got. Returns the reply
// that refuses the wait instead, if any.
std::optional<JsonReply> AwaitNewVersion(const httplib::Request& req,
                                         VersionWatch* watch) {
  if (!req.has_param("wait")) return std::nullopt;
  int64_t version = 0;
  std::string error;
  if (!runtime::ParseInt(req.get_param_value("wait"), 0, INT64_MAX, &version,
                         &error)) {
    return BadRequest("wait: " + error + " (the version you have)");
  }
  std::chrono::milliseconds timeout = kDefaultWait;
  if (req.has_param("timeout") &&
      !runtime::ParseDuration(req.get_param_value("timeout"), &timeout,
                              &error)) {
    return BadRequest("timeout: " + error);
  }
  if (timeout <= std::chrono::milliseconds(0) || timeout > kMaxWait) {
    return BadRequest("timeout: from 1ms to 60s");
  }
  if (!watch) return JsonReply{503, {{"error", "watching is off"}}};
  switch (watch->WaitWhileServing(static_cast<uint64_t>(version), timeout)) {
    case WatchResult::kChanged:
    case WatchResult::kTimedOut:
      return std::nullopt;
    case WatchResult::kBusy:
      return JsonReply{
          503,
          {{"error", "too many watches (" + std::to_string(kApiWatchers) +
                         "); retry in a second"}}};
    case WatchResult::kClosed:
      return JsonReply{503, {{"error", "ax-dns is stopping"}}};
  }
  return std::nullopt;
}

}  // namespace

HttpServer::HttpServer(HttpSources sources) : sources_(sources) {}

void HttpServer::RouteOperating() {
  httplib::Server& server = operating_.server();
  SnapshotStore* store = sources_.store;
  server.Get("/healthz", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("ok\n", "text/plain");
  });
  server.Get(
      "/readyz", [store](const httplib::Request&, httplib::Response& res) {
        if (store->Current()) {
          res.set_content("ready\n", "text/plain");
          return;
        }
        const StoreStatus s = store->Status();
        res.status = 503;
        res.set_content(
            "not ready: no snapshot loaded yet" +
                (s.last_error.empty() ? "" : "; last error: " + s.last_error) +
                "\n",
            "text/plain");
      });
  operating_.ServeMetrics([this] { return sources_.metrics->Collect(); });
  server.Get(R"(/v1/.*)", ServedOn("the API listener (--api-listen)"));
  server.Post(R"(/v1/.*)", ServedOn("the admin listener (--admin-listen)"));
}

void HttpServer::RouteApi() {
  httplib::Server& server = api_.server();
  SnapshotStore* store = sources_.store;
  server.Get("/v1/explain", [this, store](const httplib::Request& req,
                                          httplib::Response& res) {
    const auto state = store->Current();
    const auto geo = sources_.geo ? sources_.geo->Current() : nullptr;
    const JsonReply reply =
        ExplainQuery(req.params, state.get(), geo.get(), runtime::WallMs());
    Reply(res, reply.status, reply.body);
  });
  server.Get("/v1/endpoints", [this, store](const httplib::Request& req,
                                            httplib::Response& res) {
    if (const std::optional<JsonReply> refused =
            AwaitNewVersion(req, sources_.watch)) {
      if (refused->status == 503) res.set_header("Retry-After", "1");
      Reply(res, refused->status, refused->body);
      return;
    }
    const auto state = store->Current();
    const auto geo = sources_.geo ? sources_.geo->Current() : nullptr;
    const JsonReply reply =
        EndpointsQuery(req.params, state.get(), geo.get(), runtime::WallMs());
    Reply(res, reply.status, reply.body);
  });
  server.Get("/v1/snapshot",
             [store](const httplib::Request&, httplib::Response& res) {
               Reply(res, 200, StatusJson(store->Status()));
             });
  server.Post(R"(/v1/.*)", ServedOn("the admin listener (--admin-listen)"));
}

void HttpServer::RouteAdmin(const std::string& token_file) {
  SnapshotStore* store = sources_.store;
  admin_.server().Post(
      "/v1/snapshot/rollback",
      [store, token_file](const httplib::Request& req, httplib::Response& res) {
        const runtime::BearerCheck auth = runtime::CheckBearer(
            token_file, req.get_header_value("Authorization"));
        if (auth != runtime::BearerCheck::kAllowed) {
          runtime::Log(runtime::LogLevel::kWarn, "admin request refused",
                       {{"path", req.path},
                        {"from", req.remote_addr},
                        {"reason", runtime::BearerCheckText(auth)}});
          const bool unavailable = auth == runtime::BearerCheck::kUnavailable;
          if (!unavailable) {
            res.set_header("WWW-Authenticate", "Bearer realm=\"ax-dns admin\"");
          }
          Reply(res, unavailable ? 503 : 401,
                {{"error", runtime::BearerCheckText(auth)}});
          return;
        }
        std::string error;
        bool ok = false;
        if (req.has_param("version")) {
          int64_t version = 0;
          if (!runtime::ParseInt(req.get_param_value("version"), 1, INT64_MAX,
                                 &version, &error)) {
            Reply(res, 400, {{"error", "version: " + error}});
            return;
          }
          ok = store->Rollback(static_cast<uint64_t>(version), &error);
        } else {
          ok = store->Rollback(&error);
        }
        if (!ok) {
          Reply(res, 409, {{"error", error}});
          return;
        }
        runtime::Log(runtime::LogLevel::kInfo, "admin rollback accepted",
                     {{"from", req.remote_addr}});
        Reply(res, 200, StatusJson(store->Status()));
      });
}

bool HttpServer::Start(const HttpEndpoints& at, std::string* error) {
  if (at.operating) {
    RouteOperating();
    if (!operating_.Start(*at.operating, "http", error)) return false;
  }
  if (at.api) {
    RouteApi();
    if (!api_.Start(*at.api, "api", error)) return false;
  }
  if (at.admin) {
    RouteAdmin(at.admin_token_file);
    if (!admin_.Start(*at.admin, "admin", error)) return false;
  }
  return true;
}

void HttpServer::Stop() {
  operating_.Stop();
  api_.Stop();
  admin_.Stop();
}

}  // namespace ax::dns
