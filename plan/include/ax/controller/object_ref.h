// Which API object a status update or an Event is about: the identifying
// fields read from an object as the API returns it. Reading the rest of an
// object (spec, status) belongs to the parsers and status planners.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace ax::controller {

struct ObjectRef {
  std::string api_version;  // "gslb.ax.io/v1alpha1", "v1"
  std::string kind;
  std::string namespace_name;
  std::string name;
  std::string uid;               // "" when not yet created
  std::string resource_version;  // for optimistic concurrency; "" if unknown
  int64_t generation = 0;        // metadata.generation; 0 if unknown

  // "Node/gz-01".
  std::string KindName() const { return kind + "/" + name; }
};

// Reads apiVersion, kind and metadata; missing or mistyped fields stay empty.
ObjectRef RefOf(const nlohmann::json& object);

// metadata.annotations[key] when it is a string.
std::optional<std::string> AnnotationOf(const nlohmann::json& object,
                                        std::string_view key);

}  // namespace ax::controller
