// The route-table ConfigMap: how a snapshot document (snapshot_json.h) travels
// from the operator to ax-dns, through the Kubernetes API or a mounted volume.
// Encoding (text or base64 gzip, version/hash annotations, labels), the
// history ConfigMaps' names, and decoding with precise errors. Deciding when
// to publish lives in the operator's plan; no I/O here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "ax/snapshot.h"
#include "ax/snapshot_limits.h"

namespace ax {

// data["snapshot.json"]: the document as text, below the gzip threshold.
inline constexpr char kRouteTableJsonKey[] = "snapshot.json";
// binaryData["snapshot.json.gz"]: the document gzipped (base64 in the API's
// JSON, raw bytes in a mounted volume's file).
inline constexpr char kRouteTableGzipKey[] = "snapshot.json.gz";

// Annotations, so readers can check version and hash without decoding.
inline constexpr char kSnapshotVersionAnnotation[] =
    "gslb.ax.io/snapshot-version";
inline constexpr char kContentHashAnnotation[] = "gslb.ax.io/content-hash";
// The document's size before gzip; informational.
inline constexpr char kSnapshotBytesAnnotation[] = "gslb.ax.io/snapshot-bytes";
// Stamped on a member cluster's copy of the route table at each write and
// heartbeat (RFC 3339): when the control plane last confirmed the copy is
// current. A member cut off keeps serving; ax-dns reports this age.
inline constexpr char kConfirmedAtAnnotation[] = "gslb.ax.io/confirmed-at";

// Labels: every route-table ConfigMap is part of ax and names its table;
// the role tells the one ax-dns reads ("current") from the kept versions
// ("history").
inline constexpr char kPartOfLabel[] = "app.kubernetes.io/part-of";
inline constexpr char kPartOfValue[] = "ax";
inline constexpr char kRouteTableLabel[] = "gslb.ax.io/route-table";
inline constexpr char kRouteTableRoleLabel[] = "gslb.ax.io/route-table-role";

// The apiserver refuses a ConfigMap whose data plus binaryData exceed 1 MiB
// (counting binaryData decoded, as raw bytes).
inline constexpr size_t kConfigMapMaxBytes = size_t{1024} * 1024;
// Documents above this are gzipped: small ones stay readable with kubectl.
inline constexpr size_t kDefaultGzipThresholdBytes = size_t{256} * 1024;

enum class RouteTableRole { kCurrent, kHistory };

// The document as a ConfigMap stores it, computed once and shared by the
// current ConfigMap and its history copy.
struct RouteTablePayload {
  bool gzipped = false;
  std::string stored;  // the text, or the gzip bytes in base64
  // What counts against kConfigMapMaxBytes: the text's or the gzip's length.
  size_t payload_bytes = 0;
  size_t document_bytes = 0;  // the text's length
};

// Text up to `gzip_threshold_bytes`, gzip above.
RouteTablePayload EncodeRouteTablePayload(std::string_view snapshot_json,
                                          size_t gzip_threshold_bytes);

struct RouteTableConfigMapOptions {
  std::string name;  // the ConfigMap's own name
  std::string namespace_name;
  std::string route_table;  // the table it belongs to (the current's name)
  RouteTableRole role = RouteTableRole::kCurrent;
};

// The ConfigMap carrying `payload`, a SerializeSnapshot document with this
// version and content hash. History ConfigMaps are immutable.
nlohmann::json MakeRouteTableConfigMap(
    const RouteTablePayload& payload, uint64_t version,
    std::string_view content_hash, const RouteTableConfigMapOptions& options);

// "<route_table>-v<version>", the kept copy of one published version.
std::string HistoryConfigMapName(std::string_view route_table,
                                 uint64_t version);
// The version when `name` is a history name of `route_table`, else nullopt.
std::optional<uint64_t> ParseHistoryConfigMapName(std::string_view route_table,
                                                  std::string_view name);

// "app.kubernetes.io/part-of=ax,gslb.ax.io/route-table=<route_table>,
// gslb.ax.io/route-table-role=history": lists a table's kept versions.
std::string RouteTableHistorySelector(std::string_view route_table);

enum class RouteTableErrorCode {
  kNotAConfigMap,      // not an object with kind ConfigMap
  kMissingSnapshot,    // neither key present
  kAmbiguousSnapshot,  // both keys present
  kBadBase64,          // binaryData value is not base64
  kBadGzip,            // not gzip, corrupt, truncated or too large inflated
  kBadAnnotation,      // version/hash annotation malformed
  kBadSnapshot,        // the document fails ParseSnapshot
  kHashMismatch,       // annotation hash != the document's content hash
  kVersionMismatch,    // annotation version != the document's version
};
const char* RouteTableErrorCodeName(RouteTableErrorCode code);

struct RouteTableError {
  RouteTableErrorCode code = RouteTableErrorCode::kMissingSnapshot;
  // Names the key or annotation: `binaryData["snapshot.json.gz"]: invalid
  // character '*' at offset 17`.
  std::string message;
  std::string ToString() const;
};

struct DecodedRouteTable {
  std::string snapshot_json;
  size_t payload_bytes = 0;  // as stored: text or gzip length
  // From the annotations; absent on a ConfigMap made by hand.
  std::optional<uint64_t> version;
  std::string content_hash;  // "" when not annotated
  bool gzipped = false;
};

struct DecodeRouteTableResult {
  std::optional<DecodedRouteTable> table;  // set when `error` is not
  std::optional<RouteTableError> error;
};

// The document bytes and the annotations, without parsing the document.
DecodeRouteTableResult DecodeRouteTableConfigMap(
    const nlohmann::json& config_map,
    size_t max_document_bytes = kSnapshotMaxDocumentBytes);

// One file of a mounted ConfigMap volume: `key` is the file name
// (kRouteTableJsonKey or kRouteTableGzipKey), `bytes` its raw contents.
// Volumes carry no annotations: version and hash stay unset.
DecodeRouteTableResult DecodeRouteTablePayload(
    std::string_view key, std::string_view bytes,
    size_t max_document_bytes = kSnapshotMaxDocumentBytes);

struct ParseRouteTableResult {
  std::optional<Snapshot> snapshot;  // set when `error` is not
  std::optional<RouteTableError> error;
  size_t document_bytes = 0;  // once decoded; 0 when decoding failed
  size_t payload_bytes = 0;   // as stored: text or gzip length
  bool gzipped = false;
};

// Decodes, parses the document strictly (ParseSnapshot) and checks that the
// annotations, when present, agree with it.
ParseRouteTableResult ParseRouteTableConfigMap(
    const nlohmann::json& config_map,
    size_t max_document_bytes = kSnapshotMaxDocumentBytes);

}  // namespace ax
