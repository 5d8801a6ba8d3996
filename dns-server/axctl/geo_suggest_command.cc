// axctl geo suggest: flags -> measurements -> SuggestGeoOverrides -> YAML
// proposals on stdout, the per-prefix report on stderr.
#include "axctl/geo_suggest_command.h"

#include <charconv>
#include <ctime>
#include <fstream>
#include <iostream>
#include <sstream>

#include "ax/classify.h"
#include "ax/explain.h"
#include "ax/rfc3339.h"
#include "axctl/geo_flags.h"
#include "axctl/measurement_log.h"
#include "axctl/world_source.h"

namespace ax {
namespace {

using Json = nlohmann::ordered_json;

std::optional<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Reads every --measurements and --access-log file; false (with the reason
// on stderr) when one cannot be read or, without --skip-bad-lines, has a bad
// line.
bool ReadMeasurements(const Args& args, std::vector<Measurement>& out) {
  std::vector<LogError> errors;
  auto read = [&](const std::string& path) -> std::optional<std::string> {
    auto text = ReadFile(path);
    if (!text) std::cerr << "geo suggest: cannot read " << path << "\n";
    return text;
  };
  for (const std::string& path : args.All("--measurements")) {
    const auto text = read(path);
    if (!text) return false;
    ParseJsonLines(*text, path, out, errors);
  }
  for (const std::string& spec : args.All("--access-log")) {
    const size_t eq = spec.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size()) {
      std::cerr << "geo suggest: --access-log takes NODE=FILE, got '" << spec
                << "'\n";
      return false;
    }
    const std::string path = spec.substr(eq + 1);
    const auto text = read(path);
    if (!text) return false;
    ParseAccessLog(*text, path, spec.substr(0, eq), out, errors);
  }
  constexpr size_t kShown = 20;
  for (size_t i = 0; i < errors.size() && i < kShown; ++i) {
    std::cerr << errors[i].ToString() << "\n";
  }
  if (errors.size() > kShown) {
    std::cerr << "... and " << errors.size() - kShown << " more bad lines\n";
  }
  if (!errors.empty() && !args.Has("--skip-bad-lines")) {
    std::cerr << "geo suggest: " << errors.size()
              << " bad lines (--skip-bad-lines to go on without them)\n";
    return false;
  }
  return true;
}

// A positive number flag into `out`; false (said on stderr) when malformed.
template <typename T>
bool NumberFlag(const Args& args, const char* flag, T& out) {
  if (!args.Has(flag)) return true;
  const std::string text = args.Get(flag);
  T value{};
  const auto [end, ec] =
      std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 0) {
    std::cerr << "geo suggest: " << flag << " must be a number >= 0, got '"
              << text << "'\n";
    return false;
  }
  out = value;
  return true;
}

bool Options(const Args& args, SuggestOptions& o, int64_t& now_s) {
  int64_t days = o.expires_after_s / 86400;
  if (!NumberFlag(args, "--min-samples", o.min_samples) ||
      !NumberFlag(args, "--min-margin-ms", o.min_margin_ms) ||
      !NumberFlag(args, "--min-margin-ratio", o.min_margin_ratio) ||
      !NumberFlag(args, "--windows", o.windows) ||
      !NumberFlag(args, "--min-windows-won", o.min_windows_won) ||
      !NumberFlag(args, "--expires-after-days", days)) {
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

// Block YAML for maps; every other value as JSON, which is YAML's flow
// style. Strings stay quoted, so times are not read back as timestamps.
void AppendYaml(const Json& map, int indent, std::string& out) {
  for (const auto& [key, value] : map.items()) {
    out.append(indent, ' ').append(key).push_back(':');
    if (value.is_object() && !value.empty()) {
      out.push_back('\n');
      AppendYaml(value, indent + 2, out);
    } else {
      out.append(" ").append(value.dump()).push_back('\n');
    }
  }
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

}  // namespace

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

int GeoCommand(const Args& args) {
  if (args.positional.size() < 2 || args.positional[0] != "suggest" ||
      (!args.Has("--measurements") && !args.Has("--access-log"))) {
    std::cerr << "usage:\n" << kGeoUsage;
    return 2;
  }
  SuggestOptions options;
  int64_t now_s = 0;
  if (!Options(args, options, now_s)) return 2;
  World world;
  const std::vector<std::string> paths(args.positional.begin() + 1,
                                       args.positional.end());
  if (!LoadManifests(paths, world)) return 1;
  const std::optional<Snapshot> snapshot = SnapshotFromManifests(paths);
  if (!snapshot) return 1;
  std::shared_ptr<const dns::GeoResolver> resolver;
  if (!OptionalGeoResolver(args, resolver)) return 1;
  std::vector<Measurement> measurements;
  if (!ReadMeasurements(args, measurements)) return 1;

  // As ax-dns would classify the prefix's first address now: the database,
  // the Regions' CIDRs and the overrides already in force.
  const Classifier classifier(*snapshot);
  const Suggestions s = SuggestGeoOverrides(
      measurements, world.regions,
      [&](const IpPrefix& prefix) {
        GeoInfo geo;
        if (resolver) {
          resolver->Lookup(prefix.address, geo,
                           dns::GeoResolver::Detail::kClassify);
        }
        const Classification c = classifier.Classify(prefix.address, geo);
        return c.region == kNoIndex ? std::string()
                                    : snapshot->regions[c.region].name;
      },
      now_s, options);

  if (args.Has("--json")) {
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
      std::string yaml = "---\n";
      AppendYaml(GeoOverrideManifest(o), 0, yaml);
      std::cout << yaml;
    }
  }
  for (const PrefixFinding& f : s.findings) {
    std::cerr << FindingLine(f) << "\n";
  }
  std::cerr << s.proposals.size() << " proposals from " << measurements.size()
            << " measurements of " << s.findings.size() << " prefixes\n";
  return 0;
}

}  // namespace ax
