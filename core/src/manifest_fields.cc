// The typed field reader (manifest_fields.h): JSON type checks, ranges and the
// JSON-level formats (durations as text or seconds, embedded JSON, status
// lists). Text formats belong in manifest_formats.cc, manifest layouts in
// model_parse.cc.
#include "manifest_fields.h"

#include "ax/json_text.h"
#include "manifest_formats.h"

namespace ax::manifest {
namespace {

// A JSON scalar of the type `is_type` reports, copied into `out`; otherwise
// "must be <expected>, got ...".
template <typename T>
bool DecodeScalar(Context& ctx, const std::string& path, const json& v,
                  bool is_type, const char* expected, T& out) {
  if (!is_type) {
    ctx.Error(path,
              std::string("must be ") + expected + ", got " + Describe(v));
    return false;
  }
  out = v.get<T>();
  return true;
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

}  // namespace

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

bool Decode(Context& ctx, const std::string& path, const json& v,
            std::string& out) {
  return DecodeScalar(ctx, path, v, v.is_string(), "a string", out);
}

bool Decode(Context& ctx, const std::string& path, const json& v, bool& out) {
  return DecodeScalar(ctx, path, v, v.is_boolean(), "true or false", out);
}

bool Decode(Context& ctx, const std::string& path, const json& v, double& out) {
  return DecodeScalar(ctx, path, v, v.is_number(), "a number", out);
}

bool Decode(Context& ctx, const std::string& path, const json& v,
            uint32_t& out) {
  return DecodeInt(ctx, path, v, out);
}
bool Decode(Context& ctx, const std::string& path, const json& v,
            int64_t& out) {
  return DecodeInt(ctx, path, v, out);
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

template <typename T>
bool DecodeMilliseconds(Context& ctx, const std::string& path, const json& v,
                        T& out) {
  uint64_t ms = 0;
  if (!DecodeDurationMs(ctx, path, v, ms)) return false;
  out = static_cast<T>(ms);
  return true;
}
template bool DecodeMilliseconds(Context&, const std::string&, const json&,
                                 uint32_t&);
template bool DecodeMilliseconds(Context&, const std::string&, const json&,
                                 double&);

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

bool DecodeJsonObjectText(Context& ctx, const std::string& path, const json& v,
                          std::string& out) {
  json parsed =
      v.is_string() ? json::parse(v.get<std::string>(), nullptr, false) : v;
  if (!parsed.is_object()) {
    ctx.Error(path, "must be a JSON object or a string holding one, got " +
                        Describe(v));
    return false;
  }
  // Invalid UTF-8 in a YAML string would make dump() throw (found by the
  // manifest fuzz target): it becomes U+FFFD, as everywhere text is served.
  out = JsonText(parsed);
  return true;
}

bool DecodeStatusCodes(Context& ctx, const std::string& path, const json& v,
                       std::vector<int>& out) {
  Decoder<int> status = &DecodeInt<int, 100, 599>;
  if (v.is_array()) return Decode(ctx, path, v, out, status);
  int code = 0;
  if (!status(ctx, path, v, code)) return false;
  out = {code};
  return true;
}

// ---- Fields ----

Fields::Fields(Context& ctx, const json* value, std::string path,
               Unknown unknown)
    : ctx_(ctx), path_(std::move(path)), unknown_(unknown) {
  if (value == nullptr || value->is_null()) return;
  if (!value->is_object()) {
    ctx_.Error(path_, "must be a map, got " + Describe(*value));
    return;
  }
  map_ = value;
}

Fields::~Fields() {
  if (map_ == nullptr || unknown_ == Unknown::kAllow) return;
  for (const auto& item : map_->items()) {
    if (!read_.contains(item.key()))
      ctx_.Error(PathOf(item.key()), "unknown field");
  }
}

std::string Fields::PathOf(std::string_view key) const {
  return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
}

const json* Fields::Find(std::string_view key) {
  read_.emplace(key);
  if (map_ == nullptr) return nullptr;
  auto it = map_->find(key);
  return it == map_->end() || it->is_null() ? nullptr : &*it;
}

Fields Fields::Sub(std::string_view key, Unknown unknown) {
  return Fields(ctx_, Find(key), PathOf(key), unknown);
}

}  // namespace ax::manifest
