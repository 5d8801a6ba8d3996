// axctl status (status_command.h).
#include "axctl/status_command.h"

#include <iostream>
#include <optional>
#include <string>

#include "ax/route_table_configmap.h"
#include "ax/runtime/clock.h"
#include "axctl/cluster.h"
#include "axctl/for_flag.h"
#include "axctl/output.h"
#include "axctl/status_report.h"

namespace ax {

const char kStatusUsage[] =
    "  axctl status [--route-table ax-route-table]\n"
    "                                         the served table's version and "
    "age, each ax-dns\n"
    "                                         replica's, nodes by health per "
    "vantage group,\n"
    "                                         Rules and Canaries with their "
    "time left\n"
    "      [-n NS] [--kubeconfig F] [-o json|yaml]\n";

int StatusCommand(const Args& args) {
  const auto format = OutputFormatOf(args, "status");
  if (!format || !args.positional.empty()) {
    std::cerr << "usage:\n" << kStatusUsage;
    return 2;
  }
  std::optional<Cluster> cluster = ConnectCluster(args, "status");
  if (!cluster) return 1;
  kube::Client& client = *cluster->kube.client;
  StatusInputs in;
  in.route_table =
      args.Has("--route-table") ? args.Get("--route-table") : "ax-route-table";
  in.now_ms = runtime::WallMs();
  auto cm =
      client.Get(kube::ConfigMaps().In(cluster->ns).Named(in.route_table));
  std::optional<ParseRouteTableResult> parsed;
  if (cm) {
    in.config_map = &*cm;
    parsed = ParseRouteTableConfigMap(*cm);
    if (parsed->snapshot) {
      in.served = &*parsed->snapshot;
    } else {
      in.served_error = parsed->error->ToString();
    }
  } else if (!cm.error().IsNotFound()) {
    std::cerr << "status: ConfigMap " << in.route_table << ": "
              << cm.error().ToString() << "\n";
    return 1;
  }
  for (auto [kind, list] :
       {std::pair{"ProbeReport", &in.reports}, std::pair{"Node", &in.nodes},
        std::pair{"Rule", &in.rules}, std::pair{"Canary", &in.canaries}}) {
    auto listed = ListAx(client, kind, cluster->ns, "status");
    if (!listed) return 1;
    *list = std::move(*listed);
  }
  const nlohmann::json model = StatusModel(in);
  if (*format == OutputFormat::kText) std::cout << StatusText(model);
  PrintAs(*format, model);
  return 0;
}

}  // namespace ax
