// How axctl prints objects for `kubectl apply -f -`: one YAML document per
// object, maps and lists of maps in block style, every other value as JSON
// (YAML's flow style), so strings stay quoted and times are not read back as
// timestamps. Printing only.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace ax {

// "---\n" and `object` as block YAML.
std::string YamlDocument(const nlohmann::ordered_json& object);

}  // namespace ax
