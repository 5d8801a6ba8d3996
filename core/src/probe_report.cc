// ProbeReport <-> JSON (probe_report.h) and its quorum view. The reader uses
// the manifest field reader (manifest_fields.h) so errors read like manifest
// errors: "ProbeReport/pod-a: spec.results[1].health: must be one of ...".
// Pure: the clock is the report's own observedAt.
#include "ax/probe_report.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>

#include "ax/json_text.h"
#include "ax/rfc3339.h"
#include "manifest_fields.h"
#include "manifest_formats.h"
#include "object_envelope.h"

namespace ax {
namespace {

using manifest::Context, manifest::DecodeEnum, manifest::DecodeFormat,
    manifest::Describe, manifest::Fields, manifest::ReadObjectName,
    manifest::ReadTimeMs;
using nlohmann::json;
using nlohmann::ordered_json;

// Microseconds: finer than any probe clock, coarse enough to print briefly.
double RoundMs(double ms) { return std::round(ms * 1000.0) / 1000.0; }

// A finite, non-negative number (durations, load).
bool DecodeAmount(Context& ctx, const std::string& path, const json& v,
                  double& out) {
  if (!v.is_number() || !std::isfinite(v.get<double>()) ||
      v.get<double>() < 0) {
    ctx.Error(path, "must be a number >= 0, got " + Describe(v));
    return false;
  }
  out = v.get<double>();
  return true;
}

// A share: a finite number in [0, 1].
bool DecodeRatio(Context& ctx, const std::string& path, const json& v,
                 double& out) {
  if (!v.is_number() || !(v.get<double>() >= 0 && v.get<double>() <= 1)) {
    ctx.Error(path, "must be a ratio from 0 to 1, got " + Describe(v));
    return false;
  }
  out = v.get<double>();
  return true;
}

void ReadOptionalAmount(Fields& f, std::string_view key,
                        std::optional<double>& out) {
  if (f.Has(key)) f.Read(key, out.emplace(), &DecodeAmount);
}

bool DecodeResult(Context& ctx, const std::string& path, const json& v,
                  ProbeNodeReport& r) {
  Fields f(ctx, &v, path);
  f.ReadRequired("node", r.node, &DecodeFormat<&ReadObjectName>);
  f.ReadRequired("health", r.health,
                 &DecodeEnum<Health, ParseHealth, HealthName>);
  f.ReadRequired("up", r.up);
  ReadOptionalAmount(f, "latencyMs", r.latency_ms);
  {
    Fields phases = f.Sub("phases");
    ReadOptionalAmount(phases, "connectMs", r.phases.connect_ms);
    ReadOptionalAmount(phases, "tlsMs", r.phases.tls_ms);
    ReadOptionalAmount(phases, "firstByteMs", r.phases.first_byte_ms);
    ReadOptionalAmount(phases, "totalMs", r.phases.total_ms);
  }
  if (f.Has("load")) {
    Fields load = f.Sub("load");
    NodeLoad& l = r.load.emplace();
    load.Read("bandwidthMbps", l.bandwidth_mbps, &DecodeAmount);
    load.Read("connections", l.connections, &DecodeAmount);
  }
  if (f.Has("errorRate")) {
    f.Read("errorRate", r.error_rate.emplace(), &DecodeRatio);
  }
  f.Read("error", r.error);
  f.Read("errorDetail", r.error_detail);
  f.Read("consecutiveFailures", r.consecutive_failures);
  f.Read("consecutiveSuccesses", r.consecutive_successes);
  f.Read("transitions", r.transitions);
  f.Read("suppressed", r.suppressed);
  f.Read("flapPenalty", r.flap_penalty, &DecodeAmount);
  f.Read("healthChangedAt", r.health_changed_at_ms, &DecodeFormat<&ReadTimeMs>);
  return true;
}

void ReadServed(Fields& spec, std::optional<ServedSnapshot>& out) {
  if (!spec.Has("served")) return;
  Fields served = spec.Sub("served");
  ServedSnapshot& s = out.emplace();
  int64_t version = 0;
  served.ReadRequired("version", version, &manifest::DecodeInt<int64_t, 1>);
  s.version = static_cast<uint64_t>(version);
  served.ReadRequired("contentHash", s.content_hash);
  served.ReadRequired("loadedAt", s.loaded_at_ms, &DecodeFormat<&ReadTimeMs>);
}

void ParseProbeReportSpec(Context& ctx, Fields& top, ProbeReport& report) {
  Fields spec = top.Sub("spec");
  spec.ReadRequired("vantage", report.vantage);
  if (spec.Has("vantage") && report.vantage.empty()) {
    ctx.Error(spec.PathOf("vantage"), "must not be empty");
  }
  // Where the vantage sits (vantage.h); absent in reports of unplaced ones.
  spec.Read("area", report.identity.area);
  spec.Read("isp", report.identity.isp);
  spec.Read("labels", report.identity.labels);
  spec.ReadRequired("observedAt", report.observed_at_ms,
                    &DecodeFormat<&ReadTimeMs>);
  ReadServed(spec, report.served);
  if (!spec.Has("results")) {
    ctx.Error(spec.PathOf("results"), "is required (a list, may be empty)");
    return;
  }
  spec.Read("results", report.results, &DecodeResult);
  std::set<std::string> seen;
  for (size_t i = 0; i < report.results.size(); ++i) {
    const std::string& node = report.results[i].node;
    if (!node.empty() && !seen.insert(node).second) {
      ctx.Error(spec.PathOf("results") + "[" + std::to_string(i) + "].node",
                "duplicate node \"" + node + "\"");
    }
  }
}

ordered_json ResultJson(const ProbeNodeReport& r) {
  ordered_json out = {
      {"node", r.node}, {"health", HealthName(r.health)}, {"up", r.up}};
  if (r.latency_ms) out["latencyMs"] = RoundMs(*r.latency_ms);
  ordered_json phases = ordered_json::object();
  for (const auto& [key, value] :
       {std::pair{"connectMs", &r.phases.connect_ms},
        std::pair{"tlsMs", &r.phases.tls_ms},
        std::pair{"firstByteMs", &r.phases.first_byte_ms},
        std::pair{"totalMs", &r.phases.total_ms}}) {
    if (*value) phases[key] = RoundMs(**value);
  }
  out["phases"] = std::move(phases);
  if (r.load) {
    out["load"] = {{"bandwidthMbps", RoundMs(r.load->bandwidth_mbps)},
                   {"connections", RoundMs(r.load->connections)}};
  }
  if (r.error_rate) out["errorRate"] = *r.error_rate;
  if (!r.error.empty()) out["error"] = r.error;
  if (!r.error_detail.empty()) out["errorDetail"] = r.error_detail;
  out["consecutiveFailures"] = r.consecutive_failures;
  out["consecutiveSuccesses"] = r.consecutive_successes;
  out["transitions"] = r.transitions;
  if (r.suppressed) out["suppressed"] = true;
  if (r.flap_penalty > 0) out["flapPenalty"] = RoundMs(r.flap_penalty);
  if (r.health_changed_at_ms != 0) {
    out["healthChangedAt"] = FormatRfc3339Ms(r.health_changed_at_ms);
  }
  return out;
}

ordered_json ReportJson(const ProbeReport& report) {
  ordered_json results = ordered_json::array();
  for (const ProbeNodeReport& r : report.results) {
    results.push_back(ResultJson(r));
  }
  ordered_json spec = {{"vantage", report.vantage}};
  const VantageIdentity& id = report.identity;
  if (!id.area.empty()) spec["area"] = id.area;
  if (!id.isp.empty()) spec["isp"] = id.isp;
  if (!id.labels.empty()) spec["labels"] = id.labels;
  spec["observedAt"] = FormatRfc3339Ms(report.observed_at_ms);
  spec["results"] = std::move(results);
  if (const auto& s = report.served) {
    spec["served"] = {{"version", s->version},
                      {"contentHash", s->content_hash},
                      {"loadedAt", FormatRfc3339Ms(s->loaded_at_ms)}};
  }
  ordered_json out = manifest::ObjectEnvelopeJson(kProbeReportKind, report.name,
                                                  report.namespace_name);
  out["spec"] = std::move(spec);
  return out;
}

}  // namespace

std::string ProbeReportName(std::string_view vantage) {
  std::string name;
  for (char ch : vantage) {
    const auto c = static_cast<unsigned char>(
        std::tolower(static_cast<unsigned char>(ch)));
    name +=
        std::isalnum(c) || c == '.' || c == '-' ? static_cast<char>(c) : '-';
  }
  const auto alnum = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0;
  };
  while (!name.empty() && !alnum(name.front())) name.erase(name.begin());
  if (name.size() > 253) name.resize(253);
  while (!name.empty() && !alnum(name.back())) name.pop_back();
  return name.empty() ? "vantage" : name;
}

json ProbeReportToJson(const ProbeReport& report) {
  // Through text: nlohmann converts between ordered and plain json only so.
  return json::parse(SerializeProbeReport(report));
}

std::string SerializeProbeReport(const ProbeReport& report) {
  // A probe error may quote a stranger's bytes (a health endpoint's reason
  // phrase): never a throw.
  return JsonText(ReportJson(report));
}

ParseProbeReportResult ParseProbeReport(const json& object,
                                        std::string_view source) {
  return manifest::ParseReportObject<ParseProbeReportResult, ProbeReport>(
      object, source, kProbeReportKind, &ParseProbeReportSpec);
}

ParseProbeReportResult ParseProbeReportText(std::string_view text,
                                            std::string_view source) {
  return manifest::ParseObjectText<ParseProbeReportResult>(text, source,
                                                           &ParseProbeReport);
}

VantageVerdicts ToVantageVerdicts(const ProbeReport& report) {
  VantageVerdicts out{.vantage = report.vantage,
                      .identity = report.identity,
                      .observed_at_ms = report.observed_at_ms,
                      .nodes = {}};
  for (const ProbeNodeReport& r : report.results) {
    out.nodes[r.node] =
        NodeStatus{.health = r.health,
                   .latency_ms = r.latency_ms,
                   .load = r.load,
                   .health_changed_at_ms = r.health_changed_at_ms,
                   .error_rate = r.error_rate};
  }
  return out;
}

}  // namespace ax
