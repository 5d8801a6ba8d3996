// Reading a --config file (YAML; JSON is YAML too): flag names mapped to a
// value or a list, plus the sections a program reads itself (ax-dns's
// `zones:`). Values stay text here; the flag table (flag_table.h) runs them
// through the same setters as flags and env. Which keys exist is the table's.
#pragma once

#include <yaml-cpp/yaml.h>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ax::runtime {

// Flag name -> its values as text, in file order.
using ConfigValues = std::map<std::string, std::vector<std::string>>;
// nullopt: not a flag the file may set; else whether it takes a list.
using ConfigKeyKind =
    std::function<std::optional<bool>(const std::string& key)>;
// Reads the node under a section's key; false and `*error` to refuse it.
using ConfigSection =
    std::function<bool(const YAML::Node& node, std::string* error)>;
using ConfigSections = std::map<std::string, ConfigSection>;

// Fills `out` with every flag the file sets and hands each section to its
// reader. Unknown keys, wrong shapes, a section's refusal and YAML errors are
// errors naming the file (and the key).
bool ReadConfigFile(const std::string& path, const ConfigKeyKind& is_list,
                    const ConfigSections& sections, ConfigValues* out,
                    std::string* error);

}  // namespace ax::runtime
