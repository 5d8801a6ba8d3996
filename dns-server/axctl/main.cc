// axctl: the operator's command line, also installed as the kubectl plugin
// `kubectl-ax` (kubectl ax VERB ...; its usage then says so).
//   axctl validate PATH...              check manifests; every error, exit 1
//   axctl snapshot PATH... [--pretty]   print the route-table snapshot
//   axctl explain NAME --client IP      why this client gets these nodes
//                                       (explain_command.h: the sources)
//   axctl drain|undrain NODE            a Node's adminState in the cluster
//                                       (admin_command.h)
//   axctl pin|exclude|weight NODE ...   an expiring Rule (rule_command.h)
//   axctl canary pause|resume|promote|abort NAME   steer a Canary
//                                       (canary_command.h)
//   axctl rollback [--to V|--list|--resume]   the served route table
//                                       (rollback_command.h)
//   axctl status                        one look at the namespace's GSLB
//                                       (status_command.h)
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
// VERB --help prints that verb's usage with an example.
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ax/snapshot_json.h"
#include "axctl/admin_command.h"
#include "axctl/args.h"
#include "axctl/canary_command.h"
#include "axctl/explain_command.h"
#include "axctl/geo_report_command.h"
#include "axctl/geo_suggest_command.h"
#include "axctl/geodb_command.h"
#include "axctl/query_command.h"
#include "axctl/rollback_command.h"
#include "axctl/rule_command.h"
#include "axctl/status_command.h"
#include "axctl/traffic_commands.h"
#include "axctl/world_source.h"

namespace ax {
namespace {

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

int DrainCommand(const Args& args) { return AdminStateCommand(args, true); }
int UndrainCommand(const Args& args) { return AdminStateCommand(args, false); }
int PinCommand(const Args& args) { return RuleCommand(args, RuleAction::kPin); }
int ExcludeCommand(const Args& args) {
  return RuleCommand(args, RuleAction::kExclude);
}
int WeightCommand(const Args& args) {
  return RuleCommand(args, RuleAction::kWeight);
}

struct Verb {
  const char* name;
  std::string usage;  // its lines of the usage
  const char* example;
  int (*run)(const Args&);
};

const std::vector<Verb>& Verbs() {
  static const std::vector<Verb> verbs = {
      {"validate",
       "  axctl validate PATH...                 check manifests (files or "
       "directories)\n",
       "axctl validate examples/quickstart", ValidateCommand},
      {"snapshot",
       "  axctl snapshot PATH... [--pretty]      print the route-table "
       "snapshot\n",
       "axctl snapshot examples/quickstart --pretty", SnapshotCommand},
      {"explain", kExplainUsage,
       "axctl explain www.example.test --client 113.108.1.1 --manifests "
       "examples/quickstart --country CN --subdivision CN-GD --asn 4134",
       ExplainCommand},
      {"status", kStatusUsage, "axctl status -n ax-system", StatusCommand},
      {"diff", kDiffUsage, "axctl diff --from v41 --to served -n ax-system",
       DiffCommand},
      {"simulate", kSimulateUsage,
       "axctl simulate --down gz-01 --down bj-01@cn-north-unicom -n ax-system",
       SimulateCommand},
      {"drain", kAdminUsage, "axctl drain gz-01 --for 2h --reason INC-1234",
       DrainCommand},
      {"undrain", kAdminUsage, "axctl undrain gz-01", UndrainCommand},
      {"pin", kRuleUsage,
       "axctl pin bj-01 --domain www --region cn-south-telecom --for 30m "
       "--reason INC-1234",
       PinCommand},
      {"exclude", kRuleUsage,
       "axctl exclude gz-01 --domain www --isp telecom --for 1h",
       ExcludeCommand},
      {"weight", kRuleUsage, "axctl weight gz-02 10 --domain api --for 2h",
       WeightCommand},
      {"canary", kCanaryUsage, "axctl canary pause new-bj --wait",
       CanaryCommand},
      {"rollback", kRollbackUsage, "axctl rollback --to 41 --wait",
       RollbackCommand},
      {"geodb", kGeodbUsage, "axctl geodb lookup 113.108.1.1 --ipdb qqwry.ipdb",
       GeodbCommand},
      {"geo", std::string(kGeoUsage) + kGeoReportUsage,
       "axctl geo suggest --cluster -n gslb", GeoCommand},
      {"query", kQueryUsage,
       "axctl query www.example.test --server 127.0.0.1:5353 --subnet "
       "113.108.1.0/24",
       QueryCommand},
  };
  return verbs;
}

// "axctl" as this program is called: "kubectl ax" when kubectl found it as
// the plugin kubectl-ax on PATH.
std::string ProgramName(const char* argv0) {
  return std::filesystem::path(argv0 ? argv0 : "").filename() == "kubectl-ax"
             ? "kubectl ax"
             : "axctl";
}

// `text` with each "axctl " said as `program`.
std::string As(std::string text, const std::string& program) {
  for (size_t at = text.find("axctl "); at != std::string::npos;
       at = text.find("axctl ", at + program.size())) {
    text.replace(at, 5, program);
  }
  return text;
}

std::string Usage() {
  std::string out = "usage:\n";
  for (const Verb& v : Verbs()) {
    if (out.find(v.usage) == std::string::npos) out += v.usage;
  }
  return out +
         "  axctl VERB --help                      one verb, with an "
         "example\n";
}

}  // namespace
}  // namespace ax

int main(int argc, char** argv) {
  const std::string program = ax::ProgramName(argc > 0 ? argv[0] : nullptr);
  const std::string command = argc > 1 ? argv[1] : "";
  if (command.empty() || command == "--help" || command == "-h" ||
      command == "help") {
    std::fputs(ax::As(ax::Usage(), program).c_str(),
               command.empty() ? stderr : stdout);
    return command.empty() ? 2 : 0;
  }
  const ax::Args args = ax::ParseArgs(
      argc, argv, 2,
      {"--pretty", "--json", "--aaaa", "--srv", "--geo-cities", "--help",
       "--skip-bad-lines", "--cluster", "--apply", "--tcp", "--wait", "--full",
       "--list", "--resume", "--all"});
  for (const ax::Verb& v : ax::Verbs()) {
    if (command != v.name) continue;
    if (args.Has("--help")) {
      std::cout << ax::As(
          "usage:\n" + v.usage + "example:\n  " + v.example + "\n", program);
      return 0;
    }
    return v.run(args);
  }
  std::cerr << program << ": unknown command '" << command << "'\n"
            << ax::As(ax::Usage(), program);
  return 2;
}
