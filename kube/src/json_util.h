// Exception-free access to JSON from the apiserver (json_util.cc): typed field
// lookups that answer "absent" for a missing or wrongly typed field, and dump
// that never throws on bad UTF-8. Everything in ax_kube reads objects through
// these, so a surprising server response becomes an Error, not a throw.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace ax::kube {

// The string at obj[key], "" when obj is no object or the field is absent or
// no string.
std::string StringField(const nlohmann::json& obj, std::string_view key);

// obj[key] when obj is an object holding an object there, else nullptr.
const nlohmann::json* ObjectField(const nlohmann::json& obj,
                                  std::string_view key);

// metadata.namespace / metadata.name / metadata.resourceVersion, "" when
// absent.
std::string MetadataField(const nlohmann::json& obj, std::string_view key);

// Serialises without throwing: invalid UTF-8 becomes U+FFFD.
std::string Dump(const nlohmann::json& value);

// Parses without throwing; a discarded value (is_discarded()) on bad input.
nlohmann::json ParseJson(std::string_view text);

}  // namespace ax::kube
