// axctl geo suggest: flags -> measurements (files, or the cluster's reports)
// -> SuggestGeoOverrides -> YAML proposals on stdout, the per-prefix report
// on stderr, and with --cluster --apply the writes.
#include "axctl/geo_suggest_command.h"

#include <ctime>
#include <iostream>

#include "ax/classify.h"
#include "ax/explain.h"
#include "ax/geo_suggest.h"
#include "ax/rfc3339.h"
#include "axctl/cluster.h"
#include "axctl/geo_cluster.h"
#include "axctl/geo_flags.h"
#include "axctl/geo_report_command.h"
#include "axctl/measurement_inputs.h"
#include "axctl/world_source.h"
#include "axctl/yaml_out.h"

namespace ax {

using Json = nlohmann::ordered_json;

Json GeoOverrideManifest(const GeoOverride& o) {
  Json cidrs = Json::array();
  for (const IpPrefix& p : o.cidrs) cidrs.push_back(FormatPrefix(p));
  Json spec = {{"cidrs", std::move(cidrs)}, {"region", o.region}};
  if (!o.reason.empty()) spec["reason"] = o.reason;
  if (o.expires_at) {
    spec["expiresAt"] = FormatRfc3339Seconds(*o.expires_at * 1000);
  }
  spec["approved"] = o.approved;
  if (o.evidence) spec["evidence"] = GeoOverrideEvidenceJson(*o.evidence);
  return {{"apiVersion", kApiVersion},
          {"kind", "GeoOverride"},
          {"metadata", {{"name", o.meta.name}}},
          {"spec", std::move(spec)}};
}

namespace {

// A positive number flag into `out`; false (said on stderr) when malformed.
template <typename T>
bool NonNegativeFlag(const Args& args, const char* flag, T& out) {
  if (!args.Has(flag)) return true;
  const std::string text = args.Get(flag);
  const std::optional<T> value = ParseNumber<T>(text);
  if (!value || *value < 0) {
    std::cerr << "geo suggest: " << flag << " must be a number >= 0, got '"
              << text << "'\n";
    return false;
  }
  out = *value;
  return true;
}

bool Options(const Args& args, SuggestOptions& o, int64_t& now_s) {
  int64_t days = o.expires_after_s / 86400;
  if (!NonNegativeFlag(args, "--min-samples", o.min_samples) ||
      !NonNegativeFlag(args, "--min-margin-ms", o.min_margin_ms) ||
      !NonNegativeFlag(args, "--min-margin-ratio", o.min_margin_ratio) ||
      !NonNegativeFlag(args, "--windows", o.windows) ||
      !NonNegativeFlag(args, "--min-windows-won", o.min_windows_won) ||
      !NonNegativeFlag(args, "--expires-after-days", days)) {
    return false;
  }
  o.expires_after_s = days * 86400;
  now_s = std::time(nullptr);
  if (args.Has("--now")) {
    const auto ms = ParseRfc3339Ms(args.Get("--now"));
    if (!ms) {
      std::cerr << "geo suggest: --now must be RFC 3339\n";
      return false;
    }
    now_s = *ms / 1000;
  }
  return true;
}

Json FindingJson(const PrefixFinding& f) {
  Json out = {{"prefix", FormatPrefix(f.prefix)},
              {"verdict", SuggestVerdictName(f.verdict)},
              {"region", f.region},
              {"samples", f.samples}};
  if (!f.best_node.empty()) {
    out["bestNode"] = f.best_node;
    out["bestMs"] = f.best_ms;
  }
  if (!f.region_node.empty()) {
    out["regionNode"] = f.region_node;
    out["regionMs"] = f.region_ms;
  }
  if (f.windows_compared > 0) {
    out["windowsWon"] = f.windows_won;
    out["windowsCompared"] = f.windows_compared;
  }
  if (!f.target.empty()) out["proposedRegion"] = f.target;
  return out;
}

// "120.230.7.0/24  400 samples  proposed -> south-mobile  (gz-01 20.1 ms,
// bj-01 of north-mobile 59.8 ms, 4/4 windows)".
std::string FindingLine(const PrefixFinding& f) {
  char ms[64];
  std::string line = FormatPrefix(f.prefix) + "  " + std::to_string(f.samples) +
                     " samples  " + SuggestVerdictName(f.verdict);
  if (!f.target.empty()) line += " -> " + f.target;
  line += "  (";
  if (!f.best_node.empty()) {
    std::snprintf(ms, sizeof ms, " %.1f ms", f.best_ms);
    line += "best " + f.best_node + ms;
  }
  if (!f.region_node.empty()) {
    std::snprintf(ms, sizeof ms, " %.1f ms", f.region_ms);
    line += ", " + f.region_node + " of " + f.region + ms;
  } else {
    line += f.region.empty() ? ", no region" : ", region " + f.region;
  }
  if (f.windows_compared > 0) {
    line += ", " + std::to_string(f.windows_won) + "/" +
            std::to_string(f.windows_compared) + " windows";
  }
  return line + ")";
}

// The suggestions for `world`, each prefix classified as ax-dns would
// classify its first address now: the database, the Regions' CIDRs and the
// overrides in force.
Suggestions SuggestFor(
    const World& world, const std::vector<Measurement>& samples,
    const std::vector<MeasurementReport>& reports,
    const SuggestOptions& options, int64_t now_s,
    const std::shared_ptr<const dns::GeoResolver>& resolver) {
  const Snapshot snapshot = SnapshotOfWorld(world);
  const Classifier classifier(snapshot);
  return SuggestGeoOverrides(
      AggregateMeasurements(samples, reports, options), world.regions,
      [&](const IpPrefix& prefix) {
        GeoInfo geo;
        if (resolver) {
          resolver->Lookup(prefix.address, geo,
                           dns::GeoResolver::Detail::kClassify);
        }
        const Classification c = classifier.Classify(prefix.address, geo);
        return c.region == kNoIndex ? std::string()
                                    : snapshot.regions[c.region].name;
      },
      now_s, options);
}

void Print(const Suggestions& s, bool json) {
  if (json) {
    Json out = {{"proposals", Json::array()}, {"findings", Json::array()}};
    for (const GeoOverride& o : s.proposals) {
      out["proposals"].push_back(GeoOverrideManifest(o));
    }
    for (const PrefixFinding& f : s.findings) {
      out["findings"].push_back(FindingJson(f));
    }
    std::cout << out.dump(2) << "\n";
  } else {
    for (const GeoOverride& o : s.proposals) {
      std::cout << YamlDocument(GeoOverrideManifest(o));
    }
  }
  for (const PrefixFinding& f : s.findings) {
    std::cerr << FindingLine(f) << "\n";
  }
}

// --cluster: the World, reports and overrides from the API; --apply writes.
int SuggestInCluster(const Args& args, const SuggestOptions& options,
                     int64_t now_s,
                     const std::shared_ptr<const dns::GeoResolver>& resolver) {
  std::optional<Cluster> cluster = ConnectCluster(args, "geo suggest");
  if (!cluster) return 1;
  const std::string& ns = cluster->ns;
  int64_t max_age_days = 7;
  if (!NonNegativeFlag(args, "--max-report-age-days", max_age_days)) return 2;
  ClusterGeoInputs in;
  if (!ReadClusterGeo(*cluster->kube.client, ns, now_s, max_age_days * 86400,
                      in)) {
    return 1;
  }
  const Suggestions s =
      SuggestFor(in.world, {}, in.reports, options, now_s, resolver);
  Print(s, args.Has("--json"));
  const ProposalSync sync = SyncProposals(s.proposals, in.geo_overrides, now_s);
  for (const std::string& why : sync.left) std::cerr << "left: " << why << "\n";
  std::cerr << s.proposals.size() << " proposals from " << in.reports.size()
            << " reports of " << s.findings.size() << " prefixes in " << ns
            << "; to apply " << sync.apply.size() << ", to delete "
            << sync.remove.size() << " proposals and " << in.old_reports.size()
            << " old reports\n";
  if (!args.Has("--apply")) return 0;
  return WriteClusterGeo(*cluster->kube.client, ns, sync, in.old_reports) ? 0
                                                                          : 1;
}

}  // namespace

int GeoCommand(const Args& args) {
  const std::string sub = args.positional.empty() ? "" : args.positional[0];
  if (sub == "report") return GeoReportCommand(args);
  const bool cluster = args.Has("--cluster");
  const bool offline = args.positional.size() >= 2 &&
                       (args.Has("--measurements") ||
                        args.Has("--access-log") || args.Has("--reports"));
  if (sub != "suggest" || cluster == offline ||
      (args.Has("--apply") && !cluster)) {
    std::cerr << "usage:\n" << kGeoUsage;
    return 2;
  }
  SuggestOptions options;
  int64_t now_s = 0;
  if (!Options(args, options, now_s)) return 2;
  std::shared_ptr<const dns::GeoResolver> resolver;
  if (!OptionalGeoResolver(args, resolver)) return 1;
  if (cluster) return SuggestInCluster(args, options, now_s, resolver);

  World world;
  const std::vector<std::string> paths(args.positional.begin() + 1,
                                       args.positional.end());
  if (!LoadManifests(paths, world)) return 1;
  std::vector<Measurement> samples;
  std::vector<MeasurementReport> reports;
  if (!ReadMeasurementFlags(args, "geo suggest", samples) ||
      !ReadReportFlags(args, "geo suggest", reports)) {
    return 1;
  }
  const Suggestions s =
      SuggestFor(world, samples, reports, options, now_s, resolver);
  Print(s, args.Has("--json"));
  std::cerr << s.proposals.size() << " proposals from " << samples.size()
            << " samples and " << reports.size() << " reports of "
            << s.findings.size() << " prefixes\n";
  return 0;
}

}  // namespace ax
