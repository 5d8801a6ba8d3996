// /metrics: every ax_dns_* metric, from a prometheus-cpp Registry (counters the
// HTTP side bumps, e.g. redirects) plus a Collectable that reads the data
// plane at scrape time: per-worker query cells, answer counts by name, the
// snapshot store and its API source, geo databases, UDP/TCP and decision-log
// statistics; standalone, what its plan decided (ax_dns_standalone_*) and,
// probing, the prober's families (probe/metrics: ax_probe_*,
// ax_node_health_state). Names follow one
// convention (tested): ax_dns_ prefix (ax_probe_/ax_node_ for those), snake
// case, counters end _total, durations are _seconds.
#pragma once

#include <prometheus/collectable.h>
#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/metric_family.h>
#include <prometheus/registry.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "geo/geo_store.h"
#include "server/decision_log.h"
#include "server/kube_source.h"
#include "server/snapshot_store.h"
#include "server/tcp_server.h"
#include "server/telemetry.h"
#include "server/udp_server.h"
#include "server/version_watch.h"

namespace ax::dns {

// Where the numbers come from; the owner (Service) outlives the Metrics.
struct MetricSources {
  const SnapshotStore* store = nullptr;
  const GeoStore* geo = nullptr;  // null: no geo databases configured
  Telemetry* telemetry = nullptr;
  const UdpServer* udp = nullptr;
  const TcpServer* tcp = nullptr;
  const DecisionLog* decision_log = nullptr;  // null: off
  const KubeSource* kube_source = nullptr;    // null: not --snapshot-configmap
  // Standalone probing's ax_probe_* / ax_node_health_state families
  // (probe/metrics); null: not probing.
  const prometheus::Collectable* probe = nullptr;
  // Standalone's ax_dns_standalone_* (standalone_metrics.h); null otherwise.
  const prometheus::Collectable* standalone = nullptr;
  const VersionWatch* watch = nullptr;  // endpoint watches; null: no API
};

class Metrics {
 public:
  explicit Metrics(MetricSources sources);
  ~Metrics();
  Metrics(const Metrics&) = delete;
  Metrics& operator=(const Metrics&) = delete;

  // HTTP redirector outcomes by status code.
  prometheus::Counter& Redirect(int status);

  // Every family, sorted by name.
  std::vector<prometheus::MetricFamily> Collect() const;

 private:
  class DataPlane;

  std::shared_ptr<prometheus::Registry> registry_;
  prometheus::Family<prometheus::Counter>* redirects_;
  std::unique_ptr<DataPlane> data_plane_;
  const prometheus::Collectable* probe_;       // null: not probing
  const prometheus::Collectable* standalone_;  // null: not standalone
};

}  // namespace ax::dns
