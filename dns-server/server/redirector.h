// The HTTP 302 redirector (--redirect-listen): GET/HEAD http://ENTRY/PATH?Q,
// where the Host header names a served domain, answers 302 to the chosen
// node's redirectURL + PATH?Q, picked by the same Classify + Decide as DNS
// for the client's address (X-Forwarded-For only with --redirect-trust-xff).
// 404 for hosts that are not served domains; 503 with a reason when nothing
// can serve. Redirects are never cached (Cache-Control: no-store).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>

#include "ax/ip.h"
#include "ax/rng.h"
#include "ax/runtime/http_listener.h"
#include "geo/geo_store.h"
#include "responder/serving_state.h"
#include "server/metrics.h"
#include "server/snapshot_store.h"

namespace ax::dns {

struct RedirectRequest {
  std::string host;    // the Host header as sent
  std::string target;  // the request target: /path?query (or absolute form)
  IpAddress client;
  std::string scheme = "http";  // for a fallback CNAME's URL
};

struct RedirectReply {
  int status = 302;
  std::string location;  // 302 only
  std::string reason;    // 404/503: why, for the body
};

// Pure: the pick for one request on `state` (null: nothing loaded, 503).
RedirectReply DecideRedirect(const RedirectRequest& request,
                             const ServingState* state, const GeoResolver* geo,
                             int64_t now_ms, Rng& rng);

// redirect_url + the target's path and query, with exactly one slash between.
std::string JoinUrl(std::string_view base, std::string_view target);

struct RedirectOptions {
  runtime::Endpoint listen;
  bool trust_xff = false;  // X-Forwarded-For / -Proto come from our own proxy
};

class Redirector {
 public:
  Redirector(RedirectOptions options, const SnapshotStore* store,
             const GeoStore* geo, Metrics* metrics);

  bool Start(std::string* error);
  void Stop() { listener_.Stop(); }
  const runtime::Endpoint& bound() const { return listener_.bound(); }

 private:
  const RedirectOptions options_;
  const SnapshotStore* const store_;
  const GeoStore* const geo_;  // null: no geo databases
  Metrics* const metrics_;
  const uint64_t seed_;
  std::atomic<uint64_t> requests_{0};  // distinct RNG stream per request
  runtime::HttpListener listener_;
};

}  // namespace ax::dns
