// What axctl diff and simulate start from: the served route table and the
// declared objects, read from the cluster (the route-table ConfigMap and the
// gslb.ax.io objects, by kubeconfig) or standalone (--manifests, with
// --snapshot FILE as the served table; without one, the manifests' own table
// with every node Up). Also the snapshots diff names: served, next, a kept
// version, a file. Reading only; comparing lives in traffic_shares.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ax/model.h"
#include "ax/snapshot.h"
#include "axctl/args.h"
#include "axctl/cluster.h"

namespace ax {

struct TrafficBaseline {
  Snapshot served;
  World world;
  std::optional<Cluster> cluster;  // read from a cluster: kept versions too
  std::string route_table;         // the ConfigMap's name there
};

// nullopt after saying why on stderr, prefixed with `verb`. Objects the
// cluster holds that fail validation are left out with a warning, as the
// operator leaves them out.
std::optional<TrafficBaseline> LoadTrafficBaseline(const Args& args,
                                                   std::string_view verb);

// "served", "next" (the objects rebuilt with the served health, as the
// operator's next plan would), "vN" (a kept version in the cluster), or the
// path of a snapshot document.
std::optional<Snapshot> NamedSnapshot(const TrafficBaseline& baseline,
                                      const std::string& name, int64_t now_ms,
                                      std::string_view verb);

}  // namespace ax
