// Turning a desired status into a StatusUpdate (actions.h) only when it
// differs from the object's current one, with the RFC 7386 merge patch that
// gets there. What the desired status is comes from the per-kind planners.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>

#include "ax/controller/actions.h"

namespace ax::controller {

// The object's status, or nullptr when it has none (or a non-object one).
const nlohmann::json* CurrentStatus(const nlohmann::json& object);

// RFC 7386 merge patch turning `from` into `to`: changed members as in `to`,
// removed ones null, objects recursed into, arrays and scalars replaced.
nlohmann::json MergePatch(const nlohmann::json& from, const nlohmann::json& to);

// nullopt when `desired` equals the object's current status (JSON equality:
// member order does not matter, 5 equals 5.0).
std::optional<StatusUpdate> PlanStatusUpdate(const nlohmann::json& object,
                                             nlohmann::json desired);

}  // namespace ax::controller
