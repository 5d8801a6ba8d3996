// JSON parsing with bounds on nesting depth and on the number of values,
// enforced while the parser runs, so a hostile document is refused before it
// is built instead of after (nlohmann::json::parse has neither bound). Never
// throws. What the bounds are for a given document lives with its reader
// (snapshot_limits.h for snapshots).
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace ax {

struct JsonBounds {
  size_t max_depth = 0;   // arrays and objects inside each other
  size_t max_values = 0;  // every value, containers included
};

// The document, or nullopt with `error` saying what is wrong ("malformed JSON
// at byte offset N: ...", "nesting deeper than N arrays or objects", "more
// than N values").
std::optional<nlohmann::json> ParseBoundedJson(std::string_view text,
                                               const JsonBounds& bounds,
                                               std::string* error);

}  // namespace ax
