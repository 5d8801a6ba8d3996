// Internal to core/src: the typed field reader model_parse.cc walks manifests
// with. Context collects errors, Decode* turn one JSON value into one model
// type (text formats come from manifest_formats.h), Fields reads one JSON map
// and rejects keys nobody read. Nothing here knows a manifest kind or layout.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ax/ip.h"
#include "ax/model_parse.h"

namespace ax::manifest {

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
std::string Describe(const json& v);

// A decoder turns one JSON value at `path` into `out`, reporting through `ctx`.
// Returns false (leaving `out` alone) when the value is unusable.
template <typename T>
using Decoder = bool (*)(Context& ctx, const std::string& path, const json& v,
                         T& out);

bool Decode(Context& ctx, const std::string& path, const json& v,
            std::string& out);
bool Decode(Context& ctx, const std::string& path, const json& v, bool& out);
bool Decode(Context& ctx, const std::string& path, const json& v, double& out);

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
            uint32_t& out);
bool Decode(Context& ctx, const std::string& path, const json& v, int64_t& out);

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

// The value type a manifest_formats.h reader produces.
template <typename Read>
struct ReadValue;
template <typename T>
struct ReadValue<std::string (*)(const std::string&, T&)> {
  using type = T;
};

// A string in one of manifest_formats.h's formats: &DecodeFormat<&ReadTime>.
template <auto kRead>
bool DecodeFormat(Context& ctx, const std::string& path, const json& v,
                  typename ReadValue<decltype(kRead)>::type& out) {
  return DecodeText(ctx, path, v, out, kRead);
}

bool Decode(Context& ctx, const std::string& path, const json& v,
            IpAddress& out);
bool Decode(Context& ctx, const std::string& path, const json& v,
            IpPrefix& out);

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
            std::map<std::string, std::string>& out);

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

// Durations: "500ms", "2s", "1m30s", "1h" or an integer number of seconds, at
// most 2^32-1 ms; stored as milliseconds (T is uint32_t or double, defined in
// manifest_fields.cc) or as whole seconds.
template <typename T>
bool DecodeMilliseconds(Context& ctx, const std::string& path, const json& v,
                        T& out);
bool DecodeSeconds(Context& ctx, const std::string& path, const json& v,
                   uint32_t& out);

// gRPC service config: a map, or a string holding one; stored as compact JSON
// text.
bool DecodeJsonObjectText(Context& ctx, const std::string& path, const json& v,
                          std::string& out);

// expectStatus: one status code or a list of them.
bool DecodeStatusCodes(Context& ctx, const std::string& path, const json& v,
                       std::vector<int>& out);

// Which keys of one JSON map were read; keys nobody asked for are reported when
// the reader goes out of scope, so a typo like `adress` can never be ignored by
// a forgotten call.
class Fields {
 public:
  enum class Unknown { kReject, kAllow };

  // `value` may be null (field absent: every Find returns nullptr) or must be a
  // map.
  Fields(Context& ctx, const json* value, std::string path,
         Unknown unknown = Unknown::kReject);
  Fields(const Fields&) = delete;
  Fields& operator=(const Fields&) = delete;
  ~Fields();

  std::string PathOf(std::string_view key) const;

  // The value at `key`, or nullptr when absent or null (YAML `key:` with
  // nothing after).
  const json* Find(std::string_view key);

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
  template <typename T>
  void ReadRequired(std::string_view key, std::vector<T>& out,
                    Decoder<T> item) {
    if (Find(key) == nullptr) {
      ctx_.Error(PathOf(key), "is required");
      return;
    }
    Read(key, out, item);
  }

  // A nested map; absent maps read as empty.
  Fields Sub(std::string_view key, Unknown unknown = Unknown::kReject);
  bool Has(std::string_view key) { return Find(key) != nullptr; }

 private:
  Context& ctx_;
  std::string path_;
  Unknown unknown_;
  const json* map_ = nullptr;
  std::set<std::string, std::less<>> read_;
};

}  // namespace ax::manifest
