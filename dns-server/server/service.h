// ax-dns as one object: the snapshot store and its source (file, standalone
// or the Kubernetes API), the geo store, the rate limiter, the UDP/TCP/HTTP
// edges, the operating surface (metrics, decision log, HTTP redirector) and a
// housekeeping thread (geo reloads, folding answer counts). main() builds it
// from the config; tests run it in process on port 0.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "geo/geo_store.h"
#include "responder/rrl.h"
#include "server/config.h"
#include "server/decision_log.h"
#include "server/file_source.h"
#include "server/http_server.h"
#include "server/kube_source.h"
#include "server/metrics.h"
#include "server/redirector.h"
#include "server/snapshot_store.h"
#include "server/standalone.h"
#include "server/tcp_server.h"
#include "server/telemetry.h"
#include "server/udp_server.h"

namespace ax::dns {

class Service {
 public:
  explicit Service(ServerConfig config);
  ~Service();  // Stop()
  Service(const Service&) = delete;
  Service& operator=(const Service&) = delete;

  // Starts everything. A snapshot source that cannot load yet is not fatal
  // (readyz says why and the source keeps watching); sockets, HTTP and geo
  // files that cannot be opened are.
  bool Start(std::string* error);
  void Stop();

  SnapshotStore& store() { return store_; }
  const std::vector<runtime::Endpoint>& dns_addresses() const {
    return udp_->bound();
  }
  // The HTTP listeners (http_server.h); port 0 when not served.
  const runtime::Endpoint& http_address() const { return http_->operating(); }
  const runtime::Endpoint& api_address() const { return http_->api(); }
  const runtime::Endpoint& admin_address() const { return http_->admin(); }
  UdpStats udp_stats() const { return udp_->stats(); }
  TcpStats tcp_stats() const { return tcp_->stats(); }
  const Metrics& metrics() const { return *metrics_; }
  // Only with --redirect-listen.
  const runtime::Endpoint& redirect_address() const {
    return redirector_->bound();
  }

 private:
  bool StartGeo(std::string* error);
  // The one snapshot source the config names; false only for a source that
  // can never work (an unusable kube config).
  bool StartSource(std::string* error);
  void Housekeeping();
  // UDP then TCP on the ports UDP bound, retried when port 0 gave UDP a
  // number TCP cannot have.
  bool StartDns(const QueryContext& context, std::string* error);
  // Compiles the state's geo step over the current resolver (geo_ set), or
  // reuses the served state's when the geo criteria are the same.
  void AttachGeo(const ServingState& state) const;
  // Sizes of the compiled geo tables, for the load and reload log lines.
  static nlohmann::json GeoTableFields(const GeoResolver& geo);

  const ServerConfig config_;
  SnapshotStore store_;
  // GET /v1/endpoints?wait=: woken after each swap (SetAfterServe).
  VersionWatch watch_{[this] {
                        const auto state = store_.Current();
                        return state ? state->snapshot().version : 0;
                      },
                      kApiWatchers};
  std::unique_ptr<GeoStore> geo_;
  std::unique_ptr<RateLimiter> rrl_;
  std::unique_ptr<DecisionLog> decision_log_;  // null: off
  std::unique_ptr<Telemetry> telemetry_;
  std::unique_ptr<Metrics> metrics_;
  std::unique_ptr<FileSource> file_source_;
  std::unique_ptr<KubeSource> kube_source_;
  std::unique_ptr<StandaloneSource> standalone_;
  std::unique_ptr<UdpServer> udp_;
  std::unique_ptr<TcpServer> tcp_;
  std::unique_ptr<HttpServer> http_;
  std::unique_ptr<Redirector> redirector_;  // null: off

  std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread housekeeping_;
};

}  // namespace ax::dns
