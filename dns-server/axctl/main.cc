// axctl: the operator's command line.
//   axctl validate PATH...              check manifests; every error, exit 1
//   axctl snapshot PATH... [--pretty]   print the route-table snapshot
//   axctl explain NAME --client IP      why this client gets these nodes
//                                       (explain_command.h: the sources)
//   axctl geodb lookup IP...            what each geo database says
//   axctl geodb build CSV... -o OUT     the operator's geo data as an MMDB
//   axctl geodb diff A-FLAGS B-FLAGS    where two geo sources disagree
//                                       (geodb_command.h)
//   axctl geo suggest PATH... --measurements F   GeoOverride proposals
//   axctl geo suggest --cluster [--apply]   ... from a namespace's
//                                       MeasurementReports
//                                       (geo_suggest_command.h)
//   axctl geo report --name N --access-log NODE=F   MeasurementReports
//                                       (geo_report_command.h)
//   axctl query NAME [--server HOST[:PORT]]   one DNS query, dig-like
//                                       (query_command.h)
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "ax/snapshot_json.h"
#include "axctl/args.h"
#include "axctl/explain_command.h"
#include "axctl/geo_report_command.h"
#include "axctl/geo_suggest_command.h"
#include "axctl/geodb_command.h"
#include "axctl/query_command.h"
#include "axctl/world_source.h"

namespace ax {
namespace {

const std::string kUsage = std::string(
                               "usage:\n"
                               "  axctl validate PATH...                 check "
                               "manifests (files or directories)\n"
                               "  axctl snapshot PATH... [--pretty]      print "
                               "the route-table snapshot\n") +
                           kExplainUsage + kGeodbUsage + kGeoUsage +
                           kGeoReportUsage + kQueryUsage;

int ValidateCommand(const Args& args) {
  World world;
  if (!LoadManifests(args.positional, world)) return 1;
  std::printf(
      "ok: %zu domains, %zu regions, %zu nodes, %zu rules, %zu canaries, %zu "
      "ISP sets, %zu geo overrides\n",
      world.domains.size(), world.regions.size(), world.nodes.size(),
      world.rules.size(), world.canaries.size(), world.isp_sets.size(),
      world.geo_overrides.size());
  return 0;
}

int SnapshotCommand(const Args& args) {
  const auto snapshot = SnapshotFromManifests(args.positional);
  if (!snapshot) return 1;
  const std::string json = SerializeSnapshot(*snapshot);
  std::cout << (args.Has("--pretty") ? nlohmann::json::parse(json).dump(2)
                                     : json)
            << "\n";
  return 0;
}

}  // namespace
}  // namespace ax

int main(int argc, char** argv) {
  const std::string command = argc > 1 ? argv[1] : "";
  if (command.empty() || command == "--help" || command == "help") {
    std::fputs(ax::kUsage.c_str(), command.empty() ? stderr : stdout);
    return command.empty() ? 2 : 0;
  }
  const ax::Args args =
      ax::ParseArgs(argc, argv, 2,
                    {"--pretty", "--json", "--aaaa", "--geo-cities", "--help",
                     "--skip-bad-lines", "--cluster", "--apply", "--tcp"});
  if (command == "validate") return ax::ValidateCommand(args);
  if (command == "snapshot") return ax::SnapshotCommand(args);
  if (command == "explain") return ax::ExplainCommand(args);
  if (command == "geodb") return ax::GeodbCommand(args);
  if (command == "geo") return ax::GeoCommand(args);
  if (command == "query") return ax::QueryCommand(args);
  std::cerr << "axctl: unknown command '" << command << "'\n" << ax::kUsage;
  return 2;
}
