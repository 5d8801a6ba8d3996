// The --config file (config_file.h): a YAML map of flag names to a value or a
// list, and the sections named by the caller.
#include "ax/runtime/config_file.h"

namespace ax::runtime {

bool ReadConfigFile(const std::string& path, const ConfigKeyKind& is_list,
                    const ConfigSections& sections, ConfigValues* out,
                    std::string* error) {
  const std::string file = "config file " + path + ": ";
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::Exception& e) {
    *error = file + e.what();
    return false;
  }
  if (root.IsNull()) return true;
  if (!root.IsMap()) {
    *error = file + "expected a map of flag names";
    return false;
  }
  for (const auto& item : root) {
    const std::string key = item.first.as<std::string>("");
    if (const auto section = sections.find(key); section != sections.end()) {
      if (!section->second(item.second, error)) {
        *error = file + key + ": " + *error;
        return false;
      }
      continue;
    }
    const std::optional<bool> list = is_list(key);
    if (!list) {
      *error = file + "unknown key \"" + key + "\"";
      return false;
    }
    std::vector<std::string> values;
    if (item.second.IsSequence() && *list) {
      for (const auto& v : item.second) values.push_back(v.as<std::string>(""));
    } else if (item.second.IsScalar()) {
      values.push_back(item.second.as<std::string>(""));
    } else {
      *error =
          file + key + ": expected a " + (*list ? "list or value" : "value");
      return false;
    }
    (*out)[key] = std::move(values);
  }
  return true;
}

}  // namespace ax::runtime
