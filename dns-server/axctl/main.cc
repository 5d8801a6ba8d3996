// axctl: the operator's command line. Subcommands here work on manifests
// directly:
//   axctl validate PATH...            check manifests, print every error, exit
//   1 on any axctl snapshot PATH... [--pretty] print the route-table snapshot
//   they produce axctl explain NAME --client IP --manifests PATH [--country CC]
//   [--subdivision XX-YY]
//                 [--asn N] [--lat F --lon F] [--aaaa] [--json]
// Geo fields are given by hand until the geo database lands (issue 3); no
// probes run, so every node counts as Up.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "ax/build_snapshot.h"
#include "ax/classify.h"
#include "ax/explain.h"
#include "ax/manifest_loader.h"
#include "ax/snapshot_json.h"
#include "ax/validate.h"
#include "axctl/explain_text.h"

namespace ax {
namespace {

constexpr char kUsage[] =
    "usage:\n"
    "  axctl validate PATH...                 check manifests (files or "
    "directories)\n"
    "  axctl snapshot PATH... [--pretty]      print the route-table snapshot\n"
    "  axctl explain NAME --client IP --manifests PATH [--country CC]\n"
    "                [--subdivision XX-YY] [--asn N] [--lat F --lon F] "
    "[--aaaa] [--json]\n";

struct Args {
  std::vector<std::string> positional;
  std::map<std::string, std::string>
      flags;  // "--flag" -> value ("" for switches)
};

Args ParseArgs(int argc, char** argv) {
  static const char* kSwitches[] = {"--pretty", "--json", "--aaaa", "--help"};
  Args args;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--", 0) != 0) {
      args.positional.push_back(a);
      continue;
    }
    bool is_switch = false;
    for (const char* s : kSwitches) is_switch |= a == s;
    if (is_switch || i + 1 >= argc) {
      args.flags[a] = "";
    } else {
      args.flags[a] = argv[++i];
    }
  }
  return args;
}

// Loads every path (file or directory) into one World; prints errors.
bool Load(const std::vector<std::string>& paths, World& world) {
  bool ok = !paths.empty();
  for (const std::string& p : paths) {
    ManifestLoadResult r = std::filesystem::is_directory(p)
                               ? LoadManifestDir(p)
                               : LoadManifestFile(p);
    for (const ManifestError& e : r.errors) std::cerr << e.ToString() << "\n";
    ok &= r.ok();
    auto append = [](auto& to, auto& from) {
      to.insert(to.end(), from.begin(), from.end());
    };
    append(world.domains, r.world.domains);
    append(world.regions, r.world.regions);
    append(world.nodes, r.world.nodes);
    append(world.rules, r.world.rules);
    append(world.canaries, r.world.canaries);
  }
  if (paths.size() > 1 && ok) {
    for (const ManifestError& e : Validate(world)) {
      std::cerr << e.ToString() << "\n";
      ok = false;
    }
  }
  return ok;
}

// No prober runs inside axctl: every node counts as Up, as its admin state
// allows.
StatusMap AssumeUp(const World& world) {
  StatusMap status;
  for (const Node& n : world.nodes) status[n.meta.name].health = Health::kUp;
  return status;
}

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

int ValidateCommand(const Args& args) {
  World world;
  if (!Load(args.positional, world)) return 1;
  std::printf(
      "ok: %zu domains, %zu regions, %zu nodes, %zu rules, %zu canaries\n",
      world.domains.size(), world.regions.size(), world.nodes.size(),
      world.rules.size(), world.canaries.size());
  return 0;
}

int PrintSnapshot(const Args& args) {
  World world;
  if (!Load(args.positional, world)) return 1;
  const Snapshot s = BuildSnapshot(world, AssumeUp(world), nullptr,
                                   {.now_ms = NowMs(), .version = 1});
  const std::string json = SerializeSnapshot(s);
  std::cout << (args.flags.count("--pretty")
                    ? nlohmann::json::parse(json).dump(2)
                    : json)
            << "\n";
  return 0;
}

int ExplainCommand(const Args& args) {
  auto flag = [&](const char* name) {
    auto it = args.flags.find(name);
    return it == args.flags.end() ? std::string() : it->second;
  };
  if (args.positional.size() != 1 || flag("--client").empty() ||
      flag("--manifests").empty()) {
    std::cerr << kUsage;
    return 2;
  }
  World world;
  if (!Load({flag("--manifests")}, world)) return 1;
  auto client = ParseIp(flag("--client"));
  if (!client) {
    std::cerr << "--client: '" << flag("--client")
              << "' is not an IP address\n";
    return 2;
  }
  const Snapshot s = BuildSnapshot(world, AssumeUp(world), nullptr,
                                   {.now_ms = NowMs(), .version = 1});
  const Classifier classifier(s.regions);
  const std::string country = flag("--country"),
                    subdivision = flag("--subdivision");
  ExplainRequest req;
  req.name = args.positional[0];
  req.client = *client;
  req.geo.country = country;
  req.geo.subdivision = subdivision;
  req.geo.asn =
      static_cast<uint32_t>(std::strtoul(flag("--asn").c_str(), nullptr, 10));
  if (!flag("--lat").empty() && !flag("--lon").empty()) {
    req.geo.has_location = true;
    req.geo.location = {std::atof(flag("--lat").c_str()),
                        std::atof(flag("--lon").c_str())};
  }
  req.family = args.flags.count("--aaaa") ? IpFamily::kV6 : IpFamily::kV4;
  req.now_ms = NowMs();
  const nlohmann::json e = Explain(s, classifier, req);
  std::cout << (args.flags.count("--json") ? e.dump(2) + "\n"
                                           : ExplanationToText(e));
  return e.contains("error") ? 1 : 0;
}

}  // namespace
}  // namespace ax

int main(int argc, char** argv) {
  if (argc < 2 || std::string(argv[1]) == "--help" ||
      std::string(argv[1]) == "help") {
    std::fputs(ax::kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  const std::string command = argv[1];
  const ax::Args args = ax::ParseArgs(argc, argv);
  if (command == "validate") return ax::ValidateCommand(args);
  if (command == "snapshot") return ax::PrintSnapshot(args);
  if (command == "explain") return ax::ExplainCommand(args);
  std::cerr << "axctl: unknown command '" << command << "'\n" << ax::kUsage;
  return 2;
}
