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

namespace ax {
namespace {

using manifest::Context, manifest::DecodeEnum, manifest::DecodeFormat,
    manifest::Describe, manifest::Fields, manifest::ReadObjectName;
using nlohmann::json;
using nlohmann::ordered_json;

// Microseconds: finer than any probe clock, coarse enough to print briefly.
double RoundMs(double ms) { return std::round(ms * 1000.0) / 1000.0; }

// RFC 3339 with milliseconds kept (ParseRfc3339 drops fractions, which an
// expiry does not need but report freshness does).
std::string ReadTimeMs(const std::string& text, int64_t& ms) {
  const std::optional<int64_t> parsed = ParseRfc3339Ms(text);
  if (!parsed) {
    return "must be an RFC 3339 time like 2026-12-01T00:00:00.000Z, got \"" +
           text + "\"";
  }
  ms = *parsed;
  return "";
}

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

void ParseSpec(Context& ctx, Fields& top, ProbeReport& report) {
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

// Ordered, so the document reads apiVersion, kind, metadata, spec as kubectl
// shows objects.
ordered_json ReportJson(const ProbeReport& report) {
  ordered_json metadata = {{"name", report.name}};
  if (!report.namespace_name.empty()) {
    metadata["namespace"] = report.namespace_name;
  }
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
  return {{"apiVersion", kApiVersion},
          {"kind", kProbeReportKind},
          {"metadata", std::move(metadata)},
          {"spec", std::move(spec)}};
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
  ParseProbeReportResult result;
  Context ctx(source, result.errors);
  if (!object.is_object()) {
    ctx.Error("", "a ProbeReport must be a map, got " + Describe(object));
    return result;
  }
  ProbeReport report;
  {
    Fields top(ctx, &object, "");
    {
      // Kubernetes adds uid, resourceVersion, ownerReferences, ...: allow.
      Fields metadata = top.Sub("metadata", Fields::Unknown::kAllow);
      const json* name = metadata.Find("name");
      ctx.SetObject(std::string(kProbeReportKind) +
                    (name && name->is_string() ? "/" + name->get<std::string>()
                                               : std::string()));
      metadata.ReadRequired("name", report.name,
                            &DecodeFormat<&ReadObjectName>);
      metadata.Read("namespace", report.namespace_name);
    }
    std::string api_version, kind;
    top.ReadRequired("apiVersion", api_version);
    top.ReadRequired("kind", kind);
    if (!api_version.empty() && api_version != kApiVersion) {
      ctx.Error("apiVersion", "must be " + std::string(kApiVersion) +
                                  ", got \"" + api_version + "\"");
    }
    if (!kind.empty() && kind != kProbeReportKind) {
      ctx.Error("kind", "must be " + std::string(kProbeReportKind) +
                            ", got \"" + kind + "\"");
    }
    top.Find("status");  // nothing reads it yet; Kubernetes may add one
    ParseSpec(ctx, top, report);
  }
  if (result.errors.empty()) result.report = std::move(report);
  return result;
}

ParseProbeReportResult ParseProbeReportText(std::string_view text,
                                            std::string_view source) {
  json object = json::parse(text.begin(), text.end(), nullptr,
                            /*allow_exceptions=*/false);
  if (object.is_discarded()) {
    ParseProbeReportResult result;
    result.errors.push_back({std::string(source), "", "", "not valid JSON"});
    return result;
  }
  return ParseProbeReport(object, source);
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
                   .health_changed_at_ms = r.health_changed_at_ms};
  }
  return out;
}

}  // namespace ax
