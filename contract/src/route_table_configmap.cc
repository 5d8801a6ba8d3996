// Route-table ConfigMap encode/decode (route_table_configmap.h). Decoding
// reads API objects written by anyone with edit rights, so it checks every
// type and never throws on content.
#include "ax/route_table_configmap.h"

#include <charconv>

#include "ax/enum_names.h"
#include "ax/gzip.h"
#include "ax/runtime/base64.h"
#include "ax/snapshot_json.h"

namespace ax {
namespace {

using nlohmann::json;
using Code = RouteTableErrorCode;

constexpr NameTable<Code, 9> kCodeNames{{
    {Code::kNotAConfigMap, "NotAConfigMap"},
    {Code::kMissingSnapshot, "MissingSnapshot"},
    {Code::kAmbiguousSnapshot, "AmbiguousSnapshot"},
    {Code::kBadBase64, "BadBase64"},
    {Code::kBadGzip, "BadGzip"},
    {Code::kBadAnnotation, "BadAnnotation"},
    {Code::kBadSnapshot, "BadSnapshot"},
    {Code::kHashMismatch, "HashMismatch"},
    {Code::kVersionMismatch, "VersionMismatch"},
}};

DecodeRouteTableResult Fail(Code code, std::string message) {
  return {std::nullopt, RouteTableError{code, std::move(message)}};
}

std::string KeyPath(const char* field, const char* key) {
  return std::string(field) + "[\"" + key + "\"]";
}

// obj[field][key] when it is a string; nullptr otherwise.
const json* StringAt(const json& obj, const char* field, const char* key) {
  auto f = obj.find(field);
  if (f == obj.end() || !f->is_object()) return nullptr;
  auto v = f->find(key);
  return v != f->end() && v->is_string() ? &*v : nullptr;
}

bool Has(const json& obj, const char* field, const char* key) {
  auto f = obj.find(field);
  return f != obj.end() && f->is_object() && f->contains(key);
}

std::optional<uint64_t> ParseDecimal(std::string_view text) {
  uint64_t value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || text.empty()) return std::nullopt;
  return value;
}

// The document from its stored form: text as is, gzip inflated (errors name
// `path`).
DecodeRouteTableResult FromPayload(std::string_view payload, bool gzipped,
                                   const std::string& path, size_t max_bytes) {
  DecodedRouteTable table;
  table.gzipped = gzipped;
  table.payload_bytes = payload.size();
  if (!gzipped) {
    table.snapshot_json = std::string(payload);
    return {std::move(table), std::nullopt};
  }
  std::string error;
  std::optional<std::string> text = GzipDecompress(payload, max_bytes, &error);
  if (!text) return Fail(Code::kBadGzip, path + ": " + error);
  table.snapshot_json = std::move(*text);
  return {std::move(table), std::nullopt};
}

// Reads the version and hash annotations into `table`; absent is fine.
std::optional<RouteTableError> ReadAnnotations(const json& cm,
                                               DecodedRouteTable& table) {
  const json* meta = nullptr;
  if (auto m = cm.find("metadata"); m != cm.end() && m->is_object()) meta = &*m;
  if (!meta) return std::nullopt;
  const std::string version_path =
      KeyPath("metadata.annotations", kSnapshotVersionAnnotation);
  if (Has(*meta, "annotations", kSnapshotVersionAnnotation)) {
    const json* v = StringAt(*meta, "annotations", kSnapshotVersionAnnotation);
    std::optional<uint64_t> version =
        v ? ParseDecimal(v->get_ref<const std::string&>()) : std::nullopt;
    if (!version) {
      return RouteTableError{Code::kBadAnnotation,
                             version_path + ": must be a decimal version"};
    }
    table.version = version;
  }
  if (Has(*meta, "annotations", kContentHashAnnotation)) {
    const json* h = StringAt(*meta, "annotations", kContentHashAnnotation);
    if (!h || h->get_ref<const std::string&>().empty()) {
      return RouteTableError{
          Code::kBadAnnotation,
          KeyPath("metadata.annotations", kContentHashAnnotation) +
              ": must be a content hash like fnv1a64:0123456789abcdef"};
    }
    table.content_hash = h->get<std::string>();
  }
  return std::nullopt;
}

}  // namespace

const char* RouteTableErrorCodeName(RouteTableErrorCode code) {
  return NameOf(kCodeNames, code);
}

std::string RouteTableError::ToString() const {
  return std::string(RouteTableErrorCodeName(code)) + ": " + message;
}

RouteTablePayload EncodeRouteTablePayload(std::string_view snapshot_json,
                                          size_t gzip_threshold_bytes) {
  RouteTablePayload out;
  out.document_bytes = snapshot_json.size();
  if (snapshot_json.size() > gzip_threshold_bytes) {
    const std::string gz = GzipCompress(snapshot_json);
    out.gzipped = true;
    out.payload_bytes = gz.size();
    out.stored = runtime::Base64Encode(gz);
  } else {
    out.payload_bytes = snapshot_json.size();
    out.stored = std::string(snapshot_json);
  }
  return out;
}

json MakeRouteTableConfigMap(const RouteTablePayload& payload, uint64_t version,
                             std::string_view content_hash,
                             const RouteTableConfigMapOptions& options) {
  const bool history = options.role == RouteTableRole::kHistory;
  json meta = {
      {"name", options.name},
      {"namespace", options.namespace_name},
      {"labels",
       {{kPartOfLabel, kPartOfValue},
        {kRouteTableLabel, options.route_table},
        {kRouteTableRoleLabel, history ? "history" : "current"}}},
      {"annotations",
       {{kSnapshotVersionAnnotation, std::to_string(version)},
        {kContentHashAnnotation, std::string(content_hash)},
        {kSnapshotBytesAnnotation, std::to_string(payload.document_bytes)}}},
  };
  json cm = {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", meta}};
  if (payload.gzipped) {
    cm["binaryData"] = {{kRouteTableGzipKey, payload.stored}};
  } else {
    cm["data"] = {{kRouteTableJsonKey, payload.stored}};
  }
  // Kept versions are rollback targets: nobody should edit them in place.
  if (history) cm["immutable"] = true;
  return cm;
}

std::string HistoryConfigMapName(std::string_view route_table,
                                 uint64_t version) {
  return std::string(route_table) + "-v" + std::to_string(version);
}

std::optional<uint64_t> ParseHistoryConfigMapName(std::string_view route_table,
                                                  std::string_view name) {
  if (!name.starts_with(route_table)) return std::nullopt;
  name.remove_prefix(route_table.size());
  if (!name.starts_with("-v")) return std::nullopt;
  name.remove_prefix(2);
  // "-v007" is not a name this codec writes.
  if (name.size() > 1 && name.front() == '0') return std::nullopt;
  return ParseDecimal(name);
}

std::string RouteTableHistorySelector(std::string_view route_table) {
  return std::string(kPartOfLabel) + "=" + kPartOfValue + "," +
         kRouteTableLabel + "=" + std::string(route_table) + "," +
         kRouteTableRoleLabel + "=history";
}

DecodeRouteTableResult DecodeRouteTablePayload(std::string_view key,
                                               std::string_view bytes,
                                               size_t max_document_bytes) {
  if (key != kRouteTableGzipKey && key != kRouteTableJsonKey) {
    std::string message(1, '"');
    message.append(key).append("\" is neither ");
    message.append(kRouteTableJsonKey)
        .append(" nor ")
        .append(kRouteTableGzipKey);
    return Fail(Code::kMissingSnapshot, std::move(message));
  }
  return FromPayload(bytes, key == kRouteTableGzipKey, std::string(key),
                     max_document_bytes);
}

DecodeRouteTableResult DecodeRouteTableConfigMap(const json& config_map,
                                                 size_t max_document_bytes) {
  if (!config_map.is_object() || !config_map.contains("kind") ||
      config_map["kind"] != "ConfigMap") {
    return Fail(Code::kNotAConfigMap, "not an object of kind ConfigMap");
  }
  const bool has_text = Has(config_map, "data", kRouteTableJsonKey);
  const bool has_gzip = Has(config_map, "binaryData", kRouteTableGzipKey);
  const std::string text_path = KeyPath("data", kRouteTableJsonKey);
  const std::string gzip_path = KeyPath("binaryData", kRouteTableGzipKey);
  if (has_text && has_gzip) {
    return Fail(Code::kAmbiguousSnapshot,
                "both " + text_path + " and " + gzip_path + " are set");
  }
  if (!has_text && !has_gzip) {
    return Fail(Code::kMissingSnapshot,
                "neither " + text_path + " nor " + gzip_path + " is set");
  }
  DecodeRouteTableResult r;
  if (has_text) {
    const json* text = StringAt(config_map, "data", kRouteTableJsonKey);
    if (!text)
      return Fail(Code::kMissingSnapshot, text_path + ": not a string");
    r = FromPayload(text->get_ref<const std::string&>(), false, text_path,
                    max_document_bytes);
  } else {
    const json* b64 = StringAt(config_map, "binaryData", kRouteTableGzipKey);
    if (!b64) return Fail(Code::kBadBase64, gzip_path + ": not a string");
    std::string error;
    std::optional<std::string> gz =
        runtime::Base64Decode(b64->get_ref<const std::string&>(), &error);
    if (!gz) return Fail(Code::kBadBase64, gzip_path + ": " + error);
    r = FromPayload(*gz, true, gzip_path, max_document_bytes);
  }
  if (!r.table) return r;
  if (std::optional<RouteTableError> e =
          ReadAnnotations(config_map, *r.table)) {
    return {std::nullopt, std::move(e)};
  }
  return r;
}

ParseRouteTableResult ParseRouteTableConfigMap(const json& config_map,
                                               size_t max_document_bytes) {
  DecodeRouteTableResult decoded =
      DecodeRouteTableConfigMap(config_map, max_document_bytes);
  if (!decoded.table) {
    ParseRouteTableResult failed;
    failed.error = std::move(decoded.error);
    return failed;
  }
  const DecodedRouteTable& table = *decoded.table;
  ParseRouteTableResult out;
  out.document_bytes = table.snapshot_json.size();
  out.payload_bytes = table.payload_bytes;
  out.gzipped = table.gzipped;
  ParseSnapshotResult parsed = ParseSnapshot(table.snapshot_json);
  if (!parsed.snapshot) {
    std::string message = "the document is not a valid snapshot: ";
    for (size_t i = 0; i < parsed.errors.size() && i < 3; ++i) {
      message += (i ? "; " : "") + parsed.errors[i].ToString();
    }
    out.error = RouteTableError{Code::kBadSnapshot, message};
    return out;
  }
  const Snapshot& s = *parsed.snapshot;
  if (!table.content_hash.empty() && table.content_hash != s.content_hash) {
    out.error = RouteTableError{
        Code::kHashMismatch,
        KeyPath("metadata.annotations", kContentHashAnnotation) + " is " +
            table.content_hash + ", the document's content hash is " +
            s.content_hash};
    return out;
  }
  if (table.version && *table.version != s.version) {
    out.error = RouteTableError{
        Code::kVersionMismatch,
        KeyPath("metadata.annotations", kSnapshotVersionAnnotation) + " is " +
            std::to_string(*table.version) + ", the document's version is " +
            std::to_string(s.version)};
    return out;
  }
  out.snapshot = std::move(parsed.snapshot);
  return out;
}

}  // namespace ax
