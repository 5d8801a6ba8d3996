// axctl diff and simulate: two snapshots, sampled alike, compared.
#include "axctl/traffic_commands.h"

#include <iostream>

#include "ax/runtime/clock.h"
#include "axctl/output.h"
#include "axctl/traffic_baseline.h"
#include "axctl/traffic_shares.h"
#include "axctl/what_if.h"
#include "axctl/world_source.h"

namespace ax {

#define AX_TRAFFIC_SOURCES                                                    \
  "        [--kubeconfig FILE] [-n NAMESPACE] [--route-table NAME]\n"         \
  "        | --manifests PATH... [--snapshot FILE]  (standalone; without a\n" \
  "          snapshot every node counts Up)\n"                                \
  "        [--clients N] [--seed N] [--domain NAME] [--aaaa] [--all]\n"       \
  "        [--min-change SHARE] [-o json|yaml]\n"

const char kDiffUsage[] =
    "  axctl diff [--from served|next|vN|FILE] [--to served|next|vN|FILE]\n"
    "        what answers change between two route tables (default: the\n"
    "        served one and the next the operator would build), as shares\n"
    "        of each Region's clients per Domain\n" AX_TRAFFIC_SOURCES;

const char kSimulateUsage[] =
    "  axctl simulate [--down NODE[@GROUP]]... [--up NODE[@GROUP]]...\n"
    "        [--load NODE=PERCENT]... [--with MANIFEST]...\n"
    "        what if: the served table rebuilt with a node down or up (as\n"
    "        every vantage, or one vantage group, sees it), a load, a Rule\n"
    "        or Canary added; shares of each Region's clients per node and\n"
    "        fallback step, before and after\n" AX_TRAFFIC_SOURCES;

#undef AX_TRAFFIC_SOURCES

namespace {

struct SampleFlags {
  SampleOptions options;
  std::string domain;  // "": every one
  double min_change = 0.005;
  bool all = false;
  OutputFormat format = OutputFormat::kText;
};

std::optional<SampleFlags> SampleFlagsOf(const Args& args,
                                         std::string_view verb) {
  SampleFlags f;
  const auto format = OutputFormatOf(args, verb);
  if (!format ||
      !NumberFlag<uint32_t>(args, "--clients", 1, 1'000'000,
                            f.options.clients_per_region, verb) ||
      !NumberFlag<uint64_t>(args, "--seed", 0, UINT64_MAX, f.options.seed,
                            verb) ||
      !NumberFlag<double>(args, "--min-change", 0, 1, f.min_change, verb)) {
    return std::nullopt;
  }
  f.format = *format;
  f.domain = args.Get("--domain");
  f.all = args.Has("--all");
  f.options.now_ms = runtime::WallMs();
  if (args.Has("--aaaa")) f.options.family = IpFamily::kV6;
  return f;
}

std::vector<RegionShares> Sample(const Snapshot& snapshot,
                                 const SampleFlags& f) {
  std::vector<RegionShares> shares = SampleShares(snapshot, f.options);
  if (!f.domain.empty()) {
    std::erase_if(shares,
                  [&](const RegionShares& s) { return s.domain != f.domain; });
  }
  return shares;
}

bool KnowsDomain(const Snapshot& snapshot, const SampleFlags& f,
                 std::string_view verb) {
  if (f.domain.empty()) return true;
  for (const SnapshotDomain& d : snapshot.domains) {
    if (d.name == f.domain) return true;
  }
  std::cerr << verb << ": --domain " << f.domain
            << ": no such Domain in the route table\n";
  return false;
}

// Samples both with the same seed (the same clients on both sides) and
// prints the comparison; `model` carries what the verb adds.
int Report(const Snapshot& before, const Snapshot& after, const SampleFlags& f,
           nlohmann::json model, const std::string& headline) {
  nlohmann::json shares =
      CompareShares(Sample(before, f), Sample(after, f),
                    f.options.clients_per_region, f.min_change);
  model.update(shares);
  model["before"] = {{"version", before.version},
                     {"contentHash", before.content_hash}};
  model["after"] = {{"version", after.version},
                    {"contentHash", after.content_hash}};
  if (f.format == OutputFormat::kText) {
    std::cout << headline << "\n" << SharesText(model, f.all);
  }
  PrintAs(f.format, model);
  return 0;
}

std::string Label(const Snapshot& s, const std::string& name) {
  return name + " (v" + std::to_string(s.version) + ")";
}

}  // namespace

int DiffCommand(const Args& args) {
  const std::optional<SampleFlags> flags = SampleFlagsOf(args, "diff");
  if (!flags || !args.positional.empty()) {
    std::cerr << "usage:\n" << kDiffUsage;
    return 2;
  }
  std::optional<TrafficBaseline> baseline = LoadTrafficBaseline(args, "diff");
  if (!baseline) return 1;
  const std::string from = args.Has("--from") ? args.Get("--from") : "served";
  const std::string to = args.Has("--to") ? args.Get("--to") : "next";
  const auto before =
      NamedSnapshot(*baseline, from, flags->options.now_ms, "diff");
  const auto after =
      NamedSnapshot(*baseline, to, flags->options.now_ms, "diff");
  if (!before || !after || !KnowsDomain(*before, *flags, "diff")) return 1;
  return Report(*before, *after, *flags, {{"from", from}, {"to", to}},
                "diff: " + Label(*before, from) + " -> " + Label(*after, to));
}

int SimulateCommand(const Args& args) {
  const std::optional<SampleFlags> flags = SampleFlagsOf(args, "simulate");
  WhatIf what_if;
  std::string error;
  bool ok = flags.has_value() && args.positional.empty();
  nlohmann::json said = nlohmann::json::array();
  for (const auto& [flag, health] :
       {std::pair{"--down", Health::kDown}, std::pair{"--up", Health::kUp}}) {
    for (const std::string& v : args.All(flag)) {
      auto o = ParseHealthOverride(v, health, error);
      if (!o) {
        std::cerr << "simulate: " << flag << " " << error << "\n";
        ok = false;
        continue;
      }
      said.push_back(v + " " + HealthName(health));
      what_if.health.push_back(std::move(*o));
    }
  }
  for (const std::string& v : args.All("--load")) {
    if (!ParseLoadOverride(v, what_if, error)) {
      std::cerr << "simulate: --load " << error << "\n";
      ok = false;
    } else {
      said.push_back("load " + v + "%");
    }
  }
  if (!ok) {
    std::cerr << "usage:\n" << kSimulateUsage;
    return 2;
  }
  if (args.Has("--with")) {
    if (!LoadManifests(args.All("--with"), what_if.objects, CrossCheck::kNo))
      return 1;
    for (const std::string& path : args.All("--with")) {
      said.push_back(path + " applied");
    }
  }
  std::optional<TrafficBaseline> baseline =
      LoadTrafficBaseline(args, "simulate");
  if (!baseline || !KnowsDomain(baseline->served, *flags, "simulate")) {
    return 1;
  }
  World world = baseline->world;
  BuildInputs inputs = InputsOfSnapshot(baseline->served, world);
  const std::vector<std::string> errors = ApplyWhatIf(what_if, world, inputs);
  for (const std::string& e : errors) std::cerr << "simulate: " << e << "\n";
  if (!errors.empty()) return 1;
  const Snapshot after =
      Rebuild(world, inputs, baseline->served, flags->options.now_ms);
  std::string headline = "simulate: served (v" +
                         std::to_string(baseline->served.version) +
                         "), what if:";
  for (const auto& s : said) {
    headline += (&s == &said.front() ? " " : "; ") + s.get<std::string>();
  }
  if (said.empty()) headline += " nothing changed";
  return Report(baseline->served, after, *flags, {{"whatIf", said}}, headline);
}

}  // namespace ax
