// What a Plan asks the caller to do besides writing ConfigMaps: status
// updates (one per object whose status must change) and Events to emit.
// Plain data; deciding them lives in the status planners and plan.h.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "ax/controller/object_ref.h"

namespace ax::controller {

// The status subresource an object should have. Emitted only when it differs
// from the object's current status.
struct StatusUpdate {
  ObjectRef object;
  nlohmann::json status;  // the whole desired status
  // {"status": ...} as an RFC 7386 merge patch from the current status to
  // `status` (removed fields are null), for PATCH .../status with
  // Content-Type application/merge-patch+json.
  nlohmann::json merge_patch;
};

enum class EventType { kNormal, kWarning };
const char* EventTypeName(EventType type);  // "Normal", "Warning"

// A core/v1 Event the caller should record against `object`.
struct Event {
  ObjectRef object;
  EventType type = EventType::kNormal;
  std::string reason;   // CamelCase: SnapshotPublished, NodeDown, ...
  std::string message;  // human-readable, stable for equal situations
};

}  // namespace ax::controller
