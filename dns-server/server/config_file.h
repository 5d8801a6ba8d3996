// Reading the --config file (YAML or JSON) into raw flag values and the
// `zones:` section. Which keys exist is config.cc's flag table; this file only
// knows the file format.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "responder/serving_state.h"

namespace ax::dns {

// Flag name -> its values as text, in file order.
using ConfigValues = std::map<std::string, std::vector<std::string>>;
// nullopt: not a flag the file may set; else whether it takes a list.
using FlagKind = std::function<std::optional<bool>(const std::string& key)>;

// Fills `out` with every flag the file sets and appends its `zones:` entries
// (the fields given; `ns` items as ParseNameServer reads them) to `zones`.
// Unknown keys, wrong shapes and YAML errors are errors naming the file.
bool ReadConfigFile(const std::string& path, const FlagKind& is_list,
                    ConfigValues* out, std::vector<ZoneConfig>* zones,
                    std::string* error);

}  // namespace ax::dns
