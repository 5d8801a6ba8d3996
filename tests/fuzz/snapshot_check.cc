// CheckSnapshot: ParseSnapshot's round trip, and the route-table ConfigMap
// codec on the same bytes as text, gzip and base64.
#include <nlohmann/json.hpp>

#include "ax/route_table_configmap.h"
#include "ax/runtime/base64.h"
#include "ax/snapshot_json.h"
#include "ax/snapshot_validate.h"
#include "fuzz_targets.h"

namespace ax::fuzz {

std::string CheckSnapshot(Input input) {
  const std::string_view text = Text(input);
  const ParseSnapshotResult parsed = ParseSnapshot(text);
  if (parsed.snapshot) {
    if (!ValidateSnapshot(*parsed.snapshot).empty()) {
      return "an accepted snapshot fails validation";
    }
    const std::string again = SerializeSnapshot(*parsed.snapshot);
    const ParseSnapshotResult reparsed = ParseSnapshot(again);
    if (!reparsed.snapshot) return "a serialised snapshot is refused";
    if (SerializeSnapshot(*reparsed.snapshot) != again) {
      return "serialise -> parse -> serialise changed the bytes";
    }
  } else if (parsed.errors.empty()) {
    return "refused without an error";
  }
  // The same bytes as each payload form a ConfigMap or a mounted file holds.
  for (const char* key : {kRouteTableJsonKey, kRouteTableGzipKey}) {
    (void)DecodeRouteTablePayload(key, text);
  }
  nlohmann::json cm = {
      {"kind", "ConfigMap"},
      {"metadata", {{"annotations", {{kSnapshotVersionAnnotation, "1"}}}}}};
  cm["binaryData"][kRouteTableGzipKey] = runtime::Base64Encode(text);
  (void)ParseRouteTableConfigMap(cm);
  cm.erase("binaryData");
  cm["data"][kRouteTableJsonKey] = std::string(text);  // bytes as they are
  const ParseRouteTableResult from_text = ParseRouteTableConfigMap(cm);
  if (!from_text.snapshot && !from_text.error) return "neither table nor error";
  return "";
}

}  // namespace ax::fuzz
