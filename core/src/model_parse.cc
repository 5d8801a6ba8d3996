// Manifest JSON -> model structs. One small reader (Fields) walks each JSON
// map, records the path for errors and rejects keys nobody read; per-format
// decoders turn values into model types. Checks that need other objects or
// several fields belong in validate.cc.
#include "ax/model_parse.h"

#include <cctype>
#include <chrono>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>

namespace ax {
namespace {

using nlohmann::json;

// Error sink for one manifest object; remembers whether anything went wrong.
class Context {
 public:
  Context(std::string_view source, std::vector<ManifestError>& errors)
      : source_(source), errors_(errors) {}

  void SetObject(std::string object) { object_ = std::move(object); }
  void Error(std::string field, std::string message) {
    errors_.push_back({source_, object_, std::move(field), std::move(message)});
    failed_ = true;
  }
  bool failed() const { return failed_; }

 private:
  std::string source_;
  std::string object_;
  std::vector<ManifestError>& errors_;
  bool failed_ = false;
};

// "a string", "an integer", ... for "must be X, got Y" messages.
std::string Describe(const json& v) {
  switch (v.type()) {
    case json::value_t::string:
      return "\"" + v.get<std::string>() + "\"";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
    case json::value_t::number_float:
    case json::value_t::boolean:
      return v.dump();
    case json::value_t::array:
      return "a list";
    case json::value_t::object:
      return "a map";
    default:
      return "null";
  }
}

// A decoder turns one JSON value at `path` into `out`, reporting through `ctx`.
// Returns false (leaving `out` alone) when the value is unusable.
template <typename T>
using Decoder = bool (*)(Context& ctx, const std::string& path, const json& v,
                         T& out);

bool Decode(Context& ctx, const std::string& path, const json& v,
            std::string& out) {
  if (!v.is_string()) {
    ctx.Error(path, "must be a string, got " + Describe(v));
    return false;
  }
  out = v.get<std::string>();
  return true;
}

bool Decode(Context& ctx, const std::string& path, const json& v, bool& out) {
  if (!v.is_boolean()) {
    ctx.Error(path, "must be true or false, got " + Describe(v));
    return false;
  }
  out = v.get<bool>();
  return true;
}

bool Decode(Context& ctx, const std::string& path, const json& v, double& out) {
  if (!v.is_number()) {
    ctx.Error(path, "must be a number, got " + Describe(v));
    return false;
  }
  out = v.get<double>();
  return true;
}

// Integers in [lo, hi]; the default range is whatever T holds.
template <typename T, int64_t kLo = std::numeric_limits<T>::min(),
          int64_t kHi = static_cast<int64_t>(
              std::min<uint64_t>(std::numeric_limits<T>::max(),
                                 std::numeric_limits<int64_t>::max()))>
bool DecodeInt(Context& ctx, const std::string& path, const json& v, T& out) {
  const std::string range = std::to_string(kLo) + ".." + std::to_string(kHi);
  if (!v.is_number_integer()) {
    ctx.Error(path, "must be an integer " + range + ", got " + Describe(v));
    return false;
  }
  const bool too_big =
      v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(kHi);
  if (too_big || v.get<int64_t>() < kLo || v.get<int64_t>() > kHi) {
    ctx.Error(path, "must be " + range + ", got " + v.dump());
    return false;
  }
  out = static_cast<T>(v.get<int64_t>());
  return true;
}

bool Decode(Context& ctx, const std::string& path, const json& v,
            uint32_t& out) {
  return DecodeInt(ctx, path, v, out);
}
bool Decode(Context& ctx, const std::string& path, const json& v,
            int64_t& out) {
  return DecodeInt(ctx, path, v, out);
}

// Decodes a string value with `convert`, which returns an error message (""
// when fine).
template <typename T, typename Convert>
bool DecodeText(Context& ctx, const std::string& path, const json& v, T& out,
                Convert convert) {
  std::string text;
  if (!Decode(ctx, path, v, text)) return false;
  std::string error = convert(text, out);
  if (!error.empty()) ctx.Error(path, error);
  return error.empty();
}

bool Decode(Context& ctx, const std::string& path, const json& v,
            IpAddress& out) {
  return DecodeText(
      ctx, path, v, out, [](const std::string& text, IpAddress& ip) {
        auto parsed = ParseIp(text);
        if (parsed) ip = *parsed;
        return parsed ? std::string()
                      : "\"" + text + "\" is not an IPv4 or IPv6 address";
      });
}

bool Decode(Context& ctx, const std::string& path, const json& v,
            IpPrefix& out) {
  return DecodeText(
      ctx, path, v, out, [](const std::string& text, IpPrefix& prefix) {
        std::string why;
        auto parsed = ParsePrefix(text, &why);
        if (parsed) prefix = *parsed;
        return parsed ? std::string()
                      : "\"" + text + "\" is not a CIDR prefix: " + why;
      });
}

template <typename T>
bool Decode(Context& ctx, const std::string& path, const json& v,
            std::vector<T>& out, Decoder<T> item = &Decode) {
  if (!v.is_array()) {
    ctx.Error(path, "must be a list, got " + Describe(v));
    return false;
  }
  out.clear();
  for (size_t i = 0; i < v.size(); ++i) {
    T value{};
    if (item(ctx, path + "[" + std::to_string(i) + "]", v[i], value)) {
      out.push_back(std::move(value));
    }
  }
  return true;
}

bool Decode(Context& ctx, const std::string& path, const json& v,
            std::map<std::string, std::string>& out) {
  if (!v.is_object()) {
    ctx.Error(path, "must be a map, got " + Describe(v));
    return false;
  }
  for (const auto& [key, value] : v.items()) {
    Decode(ctx, path + "." + key, value, out[key]);
  }
  return true;
}

// Which keys of one JSON map were read; keys nobody asked for are reported when
// the reader goes out of scope, so a typo like `adress` can never be ignored by
// a forgotten call.
class Fields {
 public:
  enum class Unknown { kReject, kAllow };

  // `value` may be null (field absent: every Find returns nullptr) or must be a
  // map.
  Fields(Context& ctx, const json* value, std::string path,
         Unknown unknown = Unknown::kReject)
      : ctx_(ctx), path_(std::move(path)), unknown_(unknown) {
    if (value == nullptr || value->is_null()) return;
    if (!value->is_object()) {
      ctx_.Error(path_, "must be a map, got " + Describe(*value));
      return;
    }
    map_ = value;
  }
  Fields(const Fields&) = delete;
  Fields& operator=(const Fields&) = delete;
  ~Fields() {
    if (map_ == nullptr || unknown_ == Unknown::kAllow) return;
    for (const auto& item : map_->items()) {
      if (!read_.contains(item.key()))
        ctx_.Error(PathOf(item.key()), "unknown field");
    }
  }

  std::string PathOf(std::string_view key) const {
    return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
  }

  // The value at `key`, or nullptr when absent or null (YAML `key:` with
  // nothing after).
  const json* Find(std::string_view key) {
    read_.emplace(key);
    if (map_ == nullptr) return nullptr;
    auto it = map_->find(key);
    return it == map_->end() || it->is_null() ? nullptr : &*it;
  }

  // Reads `key` into `out` when present; absent keys keep the model default.
  template <typename T>
  void Read(std::string_view key, T& out, Decoder<T> decode = &Decode) {
    if (const json* v = Find(key)) decode(ctx_, PathOf(key), *v, out);
  }
  template <typename T>
  void Read(std::string_view key, std::vector<T>& out,
            Decoder<T> item = &Decode) {
    if (const json* v = Find(key)) Decode(ctx_, PathOf(key), *v, out, item);
  }
  template <typename T>
  void ReadRequired(std::string_view key, T& out, Decoder<T> decode = &Decode) {
    if (Find(key) == nullptr) {
      ctx_.Error(PathOf(key), "is required");
      return;
    }
    Read(key, out, decode);
  }

  // A nested map; absent maps read as empty.
  Fields Sub(std::string_view key, Unknown unknown = Unknown::kReject) {
    return Fields(ctx_, Find(key), PathOf(key), unknown);
  }
  bool Has(std::string_view key) { return Find(key) != nullptr; }

 private:
  Context& ctx_;
  std::string path_;
  Unknown unknown_;
  const json* map_ = nullptr;
  std::set<std::string, std::less<>> read_;
};

// ---- Formats ----------------------------------------------------------

// Lower-case letters, digits and '-' per label (plus '_' where DNS allows it,
// for names like _grpc_config); labels 1..63 characters not starting or ending
// with '-'; 253 in total.
std::string CheckDnsName(std::string_view name, bool allow_underscore) {
  if (name.empty()) return "must not be empty";
  if (name.size() > 253) return "is longer than 253 characters";
  size_t start = 0;
  while (start <= name.size()) {
    size_t end = name.find('.', start);
    if (end == std::string_view::npos) end = name.size();
    std::string_view label = name.substr(start, end - start);
    if (label.empty() || label.size() > 63) {
      return "label \"" + std::string(label) + "\" must be 1..63 characters";
    }
    if (label.front() == '-' || label.back() == '-') {
      return "label \"" + std::string(label) +
             "\" must not start or end with '-'";
    }
    for (char c : label) {
      bool ok = std::islower(static_cast<unsigned char>(c)) ||
                std::isdigit(static_cast<unsigned char>(c)) || c == '-' ||
                (allow_underscore && c == '_');
      if (!ok) {
        return std::string("must use only a-z, 0-9, '-'") +
               (allow_underscore ? ", '_'" : "") + " and '.', got \"" +
               std::string(name) + "\"";
      }
    }
    start = end + 1;
  }
  return "";
}

// fqdn, zone, fallback cname: case-insensitive, the trailing root dot is
// optional.
bool DecodeHostname(Context& ctx, const std::string& path, const json& v,
                    std::string& out) {
  return DecodeText(
      ctx, path, v, out, [](const std::string& text, std::string& name) {
        name = text;
        for (char& c : name)
          c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if (name.ends_with('.')) name.pop_back();
        return CheckDnsName(name, /*allow_underscore=*/true);
      });
}

// ISO codes are matched upper case; "us" and "US" mean the same country.
std::string UpperCase(const std::string& text) {
  std::string upper = text;
  for (char& c : upper)
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return upper;
}

bool DecodeCountry(Context& ctx, const std::string& path, const json& v,
                   std::string& out) {
  return DecodeText(
      ctx, path, v, out, [](const std::string& text, std::string& code) {
        code = UpperCase(text);
        bool ok = code.size() == 2 &&
                  std::isalpha(static_cast<unsigned char>(code[0])) &&
                  std::isalpha(static_cast<unsigned char>(code[1]));
        return ok ? ""
                  : "must be an ISO 3166-1 alpha-2 code like US, got \"" +
                        text + "\"";
      });
}

bool DecodeSubdivision(Context& ctx, const std::string& path, const json& v,
                       std::string& out) {
  return DecodeText(
      ctx, path, v, out, [](const std::string& text, std::string& code) {
        code = UpperCase(text);
        size_t dash = code.find('-');
        bool ok = dash == 2 && code.size() >= 4 && code.size() <= 6;
        for (size_t i = 0; ok && i < code.size(); ++i) {
          ok = i == dash || std::isalnum(static_cast<unsigned char>(code[i]));
        }
        return ok ? ""
                  : "must be an ISO 3166-2 code like CN-GD, got \"" + text +
                        "\"";
      });
}

// Kubernetes object names (RFC 1123 subdomains): already lower case, no '_'.
bool DecodeObjectName(Context& ctx, const std::string& path, const json& v,
                      std::string& out) {
  return DecodeText(ctx, path, v, out,
                    [](const std::string& text, std::string& name) {
                      name = text;
                      return CheckDnsName(text, /*allow_underscore=*/false);
                    });
}

bool DecodeUrlPath(Context& ctx, const std::string& path, const json& v,
                   std::string& out) {
  return DecodeText(ctx, path, v, out,
                    [](const std::string& text, std::string& url_path) {
                      url_path = text;
                      return text.starts_with('/')
                                 ? ""
                                 : "must start with '/', got \"" + text + "\"";
                    });
}

bool DecodeHttpUrl(Context& ctx, const std::string& path, const json& v,
                   std::string& out) {
  return DecodeText(
      ctx, path, v, out, [](const std::string& text, std::string& url) {
        url = text;
        bool ok = text.starts_with("http://") || text.starts_with("https://");
        return ok ? ""
                  : "must be an http:// or https:// URL, got \"" + text + "\"";
      });
}

// Every name an enum accepts, for "must be one of" messages. Walks the
// underlying values until the name table answers "?" (model_names.cc's marker
// for "not a value").
template <typename E>
std::string AllowedNames(const char* (*name)(E)) {
  std::string names;
  for (int i = 0; std::string_view(name(static_cast<E>(i))) != "?"; ++i) {
    names += (i == 0 ? "" : ", ") + std::string(name(static_cast<E>(i)));
  }
  return names;
}

template <typename E, std::optional<E> (*kParse)(std::string_view),
          const char* (*kName)(E)>
bool DecodeEnum(Context& ctx, const std::string& path, const json& v, E& out) {
  return DecodeText(ctx, path, v, out, [](const std::string& text, E& value) {
    auto parsed = kParse(text);
    if (parsed) value = *parsed;
    return parsed ? ""
                  : "must be one of " + AllowedNames(kName) + ", got \"" +
                        text + "\"";
  });
}

// Durations: "500ms", "2s", "1m30s", "1h" or an integer number of seconds.
std::optional<uint64_t> ParseDurationMs(std::string_view text) {
  static constexpr std::pair<std::string_view, uint64_t> kUnits[] = {
      {"ms", 1}, {"s", 1000}, {"m", 60'000}, {"h", 3'600'000}};
  uint64_t total = 0;
  if (text.empty()) return std::nullopt;
  while (!text.empty()) {
    uint64_t number = 0;
    size_t digits = 0;
    while (digits < text.size() &&
           std::isdigit(static_cast<unsigned char>(text[digits]))) {
      number = number * 10 + static_cast<uint64_t>(text[digits++] - '0');
      if (number > (uint64_t{1} << 40)) return std::nullopt;
    }
    if (digits == 0) return std::nullopt;
    text.remove_prefix(digits);
    uint64_t scale = 0;
    // "ms" is listed before "m" so that "500ms" is not read as 500 minutes.
    for (const auto& [unit, ms] : kUnits) {
      if (text.starts_with(unit)) {
        scale = ms;
        text.remove_prefix(unit.size());
        break;
      }
    }
    if (scale == 0) return std::nullopt;
    total += number * scale;
    if (total > (uint64_t{1} << 62)) return std::nullopt;  // no wrap-around
  }
  return total;
}

bool DecodeDurationMs(Context& ctx, const std::string& path, const json& v,
                      uint64_t& out) {
  constexpr uint64_t kMaxMs = std::numeric_limits<uint32_t>::max();
  std::optional<uint64_t> ms;
  if (v.is_number_integer() && v.get<int64_t>() >= 0) {
    const auto seconds = v.get<uint64_t>();
    if (seconds <= kMaxMs / 1000) ms = seconds * 1000;
  } else if (v.is_string()) {
    ms = ParseDurationMs(v.get<std::string>());
  }
  if (!ms || *ms > kMaxMs) {
    ctx.Error(path,
              "must be a duration like \"2s\", \"500ms\", \"1m\" or whole "
              "seconds, got " +
                  Describe(v));
    return false;
  }
  out = *ms;
  return true;
}

bool DecodeMilliseconds(Context& ctx, const std::string& path, const json& v,
                        uint32_t& out) {
  uint64_t ms = 0;
  if (!DecodeDurationMs(ctx, path, v, ms)) return false;
  out = static_cast<uint32_t>(ms);
  return true;
}

bool DecodeMillisecondsDouble(Context& ctx, const std::string& path,
                              const json& v, double& out) {
  uint64_t ms = 0;
  if (!DecodeDurationMs(ctx, path, v, ms)) return false;
  out = static_cast<double>(ms);
  return true;
}

bool DecodeSeconds(Context& ctx, const std::string& path, const json& v,
                   uint32_t& out) {
  uint64_t ms = 0;
  if (!DecodeDurationMs(ctx, path, v, ms)) return false;
  if (ms % 1000 != 0) {
    ctx.Error(path, "must be whole seconds, got " + Describe(v));
    return false;
  }
  out = static_cast<uint32_t>(ms / 1000);
  return true;
}

// RFC 3339 timestamps ("2026-12-01T00:00:00Z", "2026-12-01T08:00:00+08:00") ->
// unix seconds.
std::optional<int64_t> ParseRfc3339(std::string_view s) {
  auto number = [&s](size_t pos, size_t len) -> int {
    int n = 0;
    for (size_t i = pos; i < pos + len; ++i) {
      if (i >= s.size() || !std::isdigit(static_cast<unsigned char>(s[i])))
        return -1;
      n = n * 10 + (s[i] - '0');
    }
    return n;
  };
  auto at = [&s](size_t pos, std::string_view chars) {
    return pos < s.size() && chars.find(s[pos]) != std::string_view::npos;
  };
  if (!at(4, "-") || !at(7, "-") || !at(10, "Tt") || !at(13, ":") ||
      !at(16, ":"))
    return {};
  int year = number(0, 4), month = number(5, 2), day = number(8, 2);
  int hour = number(11, 2), minute = number(14, 2), second = number(17, 2);
  size_t pos = 19;
  if (at(pos, ".")) {
    do ++pos;  // fractions of a second do not matter for an expiry
    while (at(pos, "0123456789"));
  }
  int offset = 0;
  if (at(pos, "Zz")) {
    ++pos;
  } else if (at(pos, "+-") && at(pos + 3, ":")) {
    int oh = number(pos + 1, 2), om = number(pos + 4, 2);
    if (oh < 0 || om < 0 || oh > 23 || om > 59) return {};
    offset = (s[pos] == '-' ? -1 : 1) * (oh * 3600 + om * 60);
    pos += 6;
  } else {
    return {};
  }
  if (pos != s.size() || year < 0 || month < 1 || month > 12 || day < 1 ||
      hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 ||
      second > 60) {
    return {};
  }
  const std::chrono::year_month_day date{
      std::chrono::year(year), std::chrono::month(static_cast<unsigned>(month)),
      std::chrono::day(static_cast<unsigned>(day))};
  if (!date.ok()) return {};  // 2026-02-30
  int64_t days = std::chrono::sys_days(date).time_since_epoch().count();
  return days * 86400 + int64_t{hour} * 3600 + int64_t{minute} * 60 + second -
         offset;
}

bool DecodeTime(Context& ctx, const std::string& path, const json& v,
                int64_t& out) {
  return DecodeText(ctx, path, v, out,
                    [](const std::string& text, int64_t& unix_seconds) {
                      auto parsed = ParseRfc3339(text);
                      if (parsed) unix_seconds = *parsed;
                      return parsed ? std::string()
                                    : "must be an RFC 3339 time like "
                                      "2026-12-01T00:00:00Z, got \"" +
                                          text + "\"";
                    });
}

// gRPC service config: a map, or a string holding one; stored as compact JSON
// text.
bool DecodeJsonObjectText(Context& ctx, const std::string& path, const json& v,
                          std::string& out) {
  json parsed =
      v.is_string() ? json::parse(v.get<std::string>(), nullptr, false) : v;
  if (!parsed.is_object()) {
    ctx.Error(path, "must be a JSON object or a string holding one, got " +
                        Describe(v));
    return false;
  }
  out = parsed.dump();
  return true;
}

// expectStatus: one status code or a list of them.
bool DecodeStatusCodes(Context& ctx, const std::string& path, const json& v,
                       std::vector<int>& out) {
  Decoder<int> status = &DecodeInt<int, 100, 599>;
  if (v.is_array()) return Decode(ctx, path, v, out, status);
  int code = 0;
  if (!status(ctx, path, v, code)) return false;
  out = {code};
  return true;
}

// ---- Objects ----------------------------------------------------------

void ParseBody(Fields& top, Domain& d) {
  Fields spec = top.Sub("spec");
  spec.ReadRequired("fqdn", d.fqdn, &DecodeHostname);
  spec.ReadRequired("zone", d.zone, &DecodeHostname);
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
  {
    Fields fallback = spec.Sub("fallback");
    fallback.Read("cname", d.fallback.cname, &DecodeHostname);
    fallback.Read("addresses", d.fallback.addresses);
  }
  spec.Read("grpcServiceConfig", d.grpc_service_config, &DecodeJsonObjectText);
}

void ParseBody(Fields& top, Region& r) {
  Fields spec = top.Sub("spec");
  spec.Read("area", r.area);
  spec.Read("isp", r.isp);
  {
    Fields match = spec.Sub("match");
    match.Read("countries", r.match.countries, &DecodeCountry);
    match.Read("subdivisions", r.match.subdivisions, &DecodeSubdivision);
    match.Read("asns", r.match.asns);
    match.Read("cidrs", r.match.cidrs);
    match.Read("default", r.match.catch_all);
  }
  spec.Read("nodes", r.nodes);
  spec.Read("fallbackRegions", r.fallback_regions);
}

void ParseHealthCheck(Fields& hc, HealthCheck& h) {
  hc.Read("protocol", h.protocol,
          &DecodeEnum<ProbeProtocol, ParseProbeProtocol, ProbeProtocolName>);
  hc.Read("port", h.port, &DecodeInt<uint16_t, 1, 65535>);
  hc.Read("path", h.path, &DecodeUrlPath);
  hc.Read("host", h.host);
  hc.Read("expectStatus", h.expect_status, &DecodeStatusCodes);
  hc.Read("bodyMatch", h.body_match);
  hc.Read("timeout", h.timeout_ms, &DecodeMilliseconds);
  hc.Read("interval", h.interval_ms, &DecodeMilliseconds);
  hc.Read("failureThreshold", h.failure_threshold);
  hc.Read("successThreshold", h.success_threshold);
  hc.Read("tokenSecretRef", h.token_secret_ref);
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
  spec.Read("redirectURL", n.redirect_url, &DecodeHttpUrl);
  spec.Read("adminState", n.admin_state,
            &DecodeEnum<AdminState, ParseAdminState, AdminStateName>);
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
  int64_t expires_at = 0;
  spec.Read("expiresAt", expires_at, &DecodeTime);
  if (spec.Has("expiresAt")) r.expires_at = expires_at;
  spec.Read("reason", r.reason);
}

bool DecodeCanaryStep(Context& ctx, const std::string& path, const json& v,
                      CanaryStep& out) {
  Fields step(ctx, &v, path);
  step.ReadRequired("percent", out.percent);
  step.Read("pause", out.pause_seconds, &DecodeSeconds);
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
    analysis.Read("maxLatency", c.analysis.max_latency_ms,
                  &DecodeMillisecondsDouble);
  }
  // The operator owns status and may add conditions or observedGeneration.
  Fields status = top.Sub("status", Fields::Unknown::kAllow);
  status.Read("phase", c.status_phase);
  double percent = 0;
  status.Read("percent", percent);
  if (status.Has("percent")) c.status_percent = percent;
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
    metadata.ReadRequired("name", meta.name, &DecodeObjectName);
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
