// Manifest layouts: which spec/status fields each kind has, in which model
// field and format they land, and the apiVersion/kind/metadata envelope. How a
// value is read (manifest_fields.h) or spelt (manifest_formats.h) lives
// elsewhere; checks that need other objects or several fields belong in
// validate.cc.
#include "ax/model_parse.h"

#include <nlohmann/json.hpp>
#include <utility>

#include "manifest_fields.h"
#include "manifest_formats.h"

namespace ax {
namespace {

using manifest::Context, manifest::DecodeEnum, manifest::DecodeFormat,
    manifest::DecodeInt, manifest::DecodeJsonObjectText,
    manifest::DecodeMilliseconds, manifest::DecodeSeconds,
    manifest::DecodeStatusCodes, manifest::Describe, manifest::Fields,
    manifest::ReadCityRef, manifest::ReadCountryCode, manifest::ReadHostname,
    manifest::ReadHttpUrl, manifest::ReadObjectName, manifest::ReadServiceName,
    manifest::ReadSrvProtocol, manifest::ReadSubdivisionCode,
    manifest::ReadTime, manifest::ReadTokenRef, manifest::ReadUrlPath;
using nlohmann::json;

bool DecodeSrvService(Context& ctx, const std::string& path, const json& v,
                      SrvService& out) {
  if (!v.is_object()) {
    ctx.Error(path, "must be a map of service, protocol and port, got " +
                        Describe(v));
    return false;
  }
  Fields srv(ctx, &v, path);
  srv.ReadRequired("service", out.service, &DecodeFormat<&ReadServiceName>);
  srv.ReadRequired("protocol", out.protocol, &DecodeFormat<&ReadSrvProtocol>);
  srv.ReadRequired("port", out.port, &DecodeInt<uint16_t, 1, 65535>);
  return true;
}

void ParseBody(Fields& top, Domain& d) {
  Fields spec = top.Sub("spec");
  spec.ReadRequired("fqdn", d.fqdn, &DecodeFormat<&ReadHostname>);
  spec.ReadRequired("zone", d.zone, &DecodeFormat<&ReadHostname>);
  spec.Read("strategy", d.strategy,
            &DecodeEnum<Strategy, ParseStrategy, StrategyName>);
  spec.Sub("nodeSelector").Read("matchLabels", d.node_selector);
  spec.Read("maxAnswers", d.max_answers);
  {
    Fields ttl = spec.Sub("ttl");
    ttl.Read("steady", d.ttl.steady);
    ttl.Read("failover", d.ttl.failover);
    ttl.Read("canary", d.ttl.canary);
  }
  spec.Read("hysteresisPercent", d.hysteresis_percent);
  spec.Read("slowStartSeconds", d.slow_start_seconds);
  spec.Read("answerUnknown", d.answer_unknown);
  {
    Fields fallback = spec.Sub("fallback");
    fallback.Read("cname", d.fallback.cname, &DecodeFormat<&ReadHostname>);
    fallback.Read("addresses", d.fallback.addresses);
  }
  spec.Read("grpcServiceConfig", d.grpc_service_config, &DecodeJsonObjectText);
  spec.Read("srv", d.srv, &DecodeSrvService);
  {
    Fields anycast = spec.Sub("anycast");
    anycast.Sub("nodeSelector").Read("matchLabels", d.anycast.node_selector);
    anycast.Read(
        "policy", d.anycast.policy,
        &DecodeEnum<AnycastPolicy, ParseAnycastPolicy, AnycastPolicyName>);
    anycast.Read("unicastRegions", d.anycast.unicast_regions,
                 &DecodeFormat<&ReadObjectName>);
  }
}

// One metav1.LabelSelectorRequirement: In and NotIn list values, Exists and
// DoesNotExist do not (as the apiserver checks a built-in selector).
bool DecodeLabelRequirement(Context& ctx, const std::string& path,
                            const json& v, LabelRequirement& out) {
  Fields r(ctx, &v, path);
  r.ReadRequired("key", out.key);
  r.Read("values", out.values);
  const json* op = r.Find("operator");
  if (!op) {
    ctx.Error(r.PathOf("operator"), "is required");
    return true;
  }
  // Which values fit is judged only against an operator that was read.
  if (!DecodeEnum<SelectorOperator, ParseSelectorOperator,
                  SelectorOperatorName>(ctx, r.PathOf("operator"), *op,
                                        out.op)) {
    return true;
  }
  const bool lists =
      out.op == SelectorOperator::kIn || out.op == SelectorOperator::kNotIn;
  if (lists && out.values.empty()) {
    ctx.Error(r.PathOf("values"),
              "must not be empty for operator " +
                  std::string(SelectorOperatorName(out.op)));
  } else if (!lists && !out.values.empty()) {
    ctx.Error(r.PathOf("values"),
              "must be empty for operator " +
                  std::string(SelectorOperatorName(out.op)));
  }
  return true;
}

void ParseBody(Fields& top, Region& r) {
  Fields spec = top.Sub("spec");
  spec.Read("area", r.area);
  spec.Read("isp", r.isp);
  {
    Fields match = spec.Sub("match");
    match.Read("countries", r.match.countries, &DecodeFormat<&ReadCountryCode>);
    match.Read("subdivisions", r.match.subdivisions,
               &DecodeFormat<&ReadSubdivisionCode>);
    match.Read("cities", r.match.cities, &DecodeFormat<&ReadCityRef>);
    match.Read("asns", r.match.asns);
    match.Read("isps", r.match.isps, &DecodeFormat<&ReadObjectName>);
    match.Read("cidrs", r.match.cidrs);
    match.Read("default", r.match.catch_all);
  }
  spec.Read("nodes", r.nodes);
  spec.Read("fallbackRegions", r.fallback_regions);
  if (spec.Has("vantageSelector")) {
    Fields selector = spec.Sub("vantageSelector");
    LabelSelector& out = r.vantage_selector.emplace();
    selector.Read("matchLabels", out.match_labels);
    selector.Read("matchExpressions", out.match_expressions,
                  &DecodeLabelRequirement);
  }
}

void ParseHealthCheck(Fields& hc, HealthCheck& h) {
  hc.Read("protocol", h.protocol,
          &DecodeEnum<ProbeProtocol, ParseProbeProtocol, ProbeProtocolName>);
  hc.Read("port", h.port, &DecodeInt<uint16_t, 1, 65535>);
  if (hc.Has("address")) hc.Read("address", h.address.emplace());
  hc.Read("path", h.path, &DecodeFormat<&ReadUrlPath>);
  hc.Read("host", h.host);
  hc.Read("expectStatus", h.expect_status, &DecodeStatusCodes);
  hc.Read("bodyMatch", h.body_match);
  hc.Read("timeout", h.timeout_ms, &DecodeMilliseconds);
  hc.Read("interval", h.interval_ms, &DecodeMilliseconds);
  hc.Read("failureThreshold", h.failure_threshold);
  hc.Read("successThreshold", h.success_threshold);
  if (hc.Has("flapDamping")) {
    Fields damping = hc.Sub("flapDamping");
    damping.Read("enabled", h.flap_damping.enabled);
    damping.Read("halfLife", h.flap_damping.half_life_ms, &DecodeMilliseconds);
    damping.Read("maxSuppress", h.flap_damping.max_suppress_ms,
                 &DecodeMilliseconds);
  }
  hc.Read("tokenSecretRef", h.token_secret_ref, &DecodeFormat<&ReadTokenRef>);
}

// An RFC 3339 time, if present, as unix seconds.
void ReadOptionalTime(Fields& fields, std::string_view key,
                      std::optional<int64_t>& out) {
  int64_t seconds = 0;
  fields.Read(key, seconds, &DecodeFormat<&ReadTime>);
  if (fields.Has(key)) out = seconds;
}

void ParseBody(Fields& top, Node& n) {
  Fields spec = top.Sub("spec");
  spec.Read("addresses", n.addresses);
  spec.Read("area", n.area);
  spec.Read("isp", n.isp);
  if (spec.Has("location")) {
    Fields location = spec.Sub("location");
    GeoPoint point;
    location.ReadRequired("lat", point.lat);
    location.ReadRequired("lon", point.lon);
    n.location = point;
  }
  spec.Read("weight", n.weight);
  {
    Fields capacity = spec.Sub("capacity");
    capacity.Read("bandwidthMbps", n.capacity.bandwidth_mbps);
    capacity.Read("connections", n.capacity.connections);
  }
  if (spec.Has("healthCheck")) {
    Fields hc = spec.Sub("healthCheck");
    ParseHealthCheck(hc, n.health_check.emplace());
  }
  spec.Read("redirectURL", n.redirect_url, &DecodeFormat<&ReadHttpUrl>);
  spec.Read("adminState", n.admin_state,
            &DecodeEnum<AdminState, ParseAdminState, AdminStateName>);
  ReadOptionalTime(spec, "adminStateExpiresAt", n.admin_state_expires_at);
  spec.Read("adminStateReason", n.admin_state_reason);
}

void ParseBody(Fields& top, Rule& r) {
  Fields spec = top.Sub("spec");
  spec.ReadRequired("domain", r.domain);
  {
    Fields match = spec.Sub("match");
    match.Read("region", r.region);
    match.Read("isp", r.isp);
  }
  spec.ReadRequired("action", r.action,
                    &DecodeEnum<RuleAction, ParseRuleAction, RuleActionName>);
  spec.Read("node", r.node);
  spec.Read("weight", r.weight);
  ReadOptionalTime(spec, "expiresAt", r.expires_at);
  spec.Read("reason", r.reason);
}

bool DecodeCanaryStep(Context& ctx, const std::string& path, const json& v,
                      CanaryStep& out) {
  Fields step(ctx, &v, path);
  step.ReadRequired("percent", out.percent);
  step.Read("pause", out.pause_seconds, &DecodeSeconds);
  return true;
}

// An optional number: absent stays nullopt.
void ReadOptional(Fields& f, std::string_view key, std::optional<double>& out) {
  if (!f.Has(key)) return;
  double v = 0;
  f.Read(key, v);
  out = v;
}

bool DecodeCanaryMetric(Context& ctx, const std::string& path, const json& v,
                        CanaryMetric& out) {
  Fields m(ctx, &v, path);
  m.ReadRequired("name", out.name);
  m.ReadRequired("prometheus", out.prometheus);
  m.ReadRequired("query", out.query);
  ReadOptional(m, "max", out.max);
  ReadOptional(m, "maxOverBaseline", out.max_over_baseline);
  m.Read("for", out.for_ms, &DecodeMilliseconds);
  return true;
}

bool DecodeCanaryErrorRate(Context& ctx, const std::string& path, const json& v,
                           CanaryErrorRate& out) {
  Fields f(ctx, &v, path);
  ReadOptional(f, "max", out.max);
  ReadOptional(f, "maxOverBaseline", out.max_over_baseline);
  return true;
}

void ParseBody(Fields& top, Canary& c) {
  {
    Fields spec = top.Sub("spec");
    spec.ReadRequired("domain", c.domain);
    spec.ReadRequired("node", c.node);
    spec.Read("regions", c.regions);
    spec.Read("steps", c.steps, &DecodeCanaryStep);
    Fields analysis = spec.Sub("analysis");
    analysis.Read("maxFailures", c.analysis.max_failures);
    analysis.Read("maxLatency", c.analysis.max_latency_ms, &DecodeMilliseconds);
    analysis.Read("interval", c.analysis.interval_ms, &DecodeMilliseconds);
    analysis.Read("metrics", c.analysis.metrics, &DecodeCanaryMetric);
    if (analysis.Has("errorRate")) {
      analysis.Read("errorRate", c.analysis.error_rate.emplace(),
                    &DecodeCanaryErrorRate);
    }
  }
  // The operator owns status and may add conditions or observedGeneration.
  Fields status = top.Sub("status", Fields::Unknown::kAllow);
  status.Read("phase", c.status_phase);
  double percent = 0;
  status.Read("percent", percent);
  if (status.Has("percent")) c.status_percent = percent;
}

void ParseBody(Fields& top, IspSet& s) {
  Fields spec = top.Sub("spec");
  spec.Read("asns", s.asns);
  spec.Read("names", s.names);
  spec.Read("replaceBuiltin", s.replace_builtin);
}

void ParseBody(Fields& top, GeoOverride& o) {
  Fields spec = top.Sub("spec");
  spec.Read("cidrs", o.cidrs);
  spec.ReadRequired("region", o.region, &DecodeFormat<&ReadObjectName>);
  spec.Read("reason", o.reason);
  ReadOptionalTime(spec, "expiresAt", o.expires_at);
  spec.Read("approved", o.approved);
  if (spec.Has("evidence")) {
    Fields e = spec.Sub("evidence");
    GeoOverrideEvidence& out = o.evidence.emplace();
    e.ReadRequired("samples", out.samples);
    e.ReadRequired("bestNode", out.best_node, &DecodeFormat<&ReadObjectName>);
    e.ReadRequired("bestMs", out.best_ms);
    e.Read("databaseRegion", out.db_region, &DecodeFormat<&ReadObjectName>);
    e.Read("databaseNode", out.db_node, &DecodeFormat<&ReadObjectName>);
    e.Read("databaseMs", out.db_ms);
    e.Read("from", out.from, &DecodeFormat<&ReadTime>);
    e.Read("to", out.to, &DecodeFormat<&ReadTime>);
  }
}

// Parses the whole object (metadata already read) and appends it only when it
// is clean.
template <typename T, std::vector<T> World::*kList>
void ParseInto(Context& ctx, const json& object, const ObjectMeta& meta,
               World& world) {
  T out;
  out.meta = meta;
  {
    Fields top(ctx, &object, "");
    for (const char* handled : {"apiVersion", "kind", "metadata"})
      top.Find(handled);
    top.Find("status");  // ignored unless the kind reads it below
    ParseBody(top, out);
  }
  if (!ctx.failed()) (world.*kList).push_back(std::move(out));
}

using KindParser = void (*)(Context&, const json&, const ObjectMeta&, World&);
constexpr std::pair<std::string_view, KindParser> kKinds[] = {
    {"Domain", &ParseInto<Domain, &World::domains>},
    {"Region", &ParseInto<Region, &World::regions>},
    {"Node", &ParseInto<Node, &World::nodes>},
    {"Rule", &ParseInto<Rule, &World::rules>},
    {"Canary", &ParseInto<Canary, &World::canaries>},
    {"IspSet", &ParseInto<IspSet, &World::isp_sets>},
    {"GeoOverride", &ParseInto<GeoOverride, &World::geo_overrides>},
};

}  // namespace

std::string ManifestError::ToString() const {
  std::string out;
  for (const std::string* part : {&source, &object, &field, &message}) {
    if (part->empty()) continue;
    if (!out.empty()) out += ": ";
    out += *part;
  }
  return out;
}

bool ParseManifestObject(const json& object, std::string_view source,
                         World& world, std::vector<ManifestError>& errors) {
  Context ctx(source, errors);
  if (!object.is_object()) {
    ctx.Error("", "a manifest object must be a map, got " + Describe(object));
    return false;
  }
  std::string api_version, kind;
  ObjectMeta meta;
  meta.source = std::string(source);
  {
    // Kubernetes adds uid, resourceVersion, annotations, ...: allow them.
    Fields head(ctx, &object, "", Fields::Unknown::kAllow);
    Fields metadata = head.Sub("metadata", Fields::Unknown::kAllow);
    if (const json* kind_value = head.Find("kind");
        kind_value && kind_value->is_string()) {
      kind = kind_value->get<std::string>();
    }
    // "Kind/name" as far as known: even errors about kind or name say which
    // object they are in.
    const json* name = metadata.Find("name");
    std::string object_name =
        name && name->is_string() ? name->get<std::string>() : "";
    ctx.SetObject(kind.empty() || object_name.empty()
                      ? kind + object_name
                      : kind + "/" + object_name);
    metadata.ReadRequired("name", meta.name, &DecodeFormat<&ReadObjectName>);
    metadata.Read("namespace", meta.namespace_name);
    metadata.Read("labels", meta.labels);
    metadata.Read("generation", meta.generation);
    head.ReadRequired("apiVersion", api_version);
    head.ReadRequired("kind", kind);
  }
  if (!api_version.empty() && api_version != kApiVersion) {
    ctx.Error("apiVersion", "must be " + std::string(kApiVersion) + ", got \"" +
                                api_version + "\"");
  }
  for (const auto& [name, parse] : kKinds) {
    if (name == kind) {
      parse(ctx, object, meta, world);
      return !ctx.failed();
    }
  }
  if (!kind.empty()) {
    std::string known;
    for (const auto& [name, parse] : kKinds)
      known += (known.empty() ? "" : ", ") + std::string(name);
    ctx.Error("kind",
              "unknown kind \"" + kind + "\", expected one of " + known);
  }
  return false;
}

}  // namespace ax
