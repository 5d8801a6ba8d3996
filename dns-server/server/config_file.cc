// The --config file: YAML (JSON is YAML too) mapping flag names to a value or
// a list, plus the `zones:` section. Values stay text here; config.cc runs
// them through the same setters as flags and env.
#include "server/config_file.h"

#include <yaml-cpp/yaml.h>

#include <set>

#include "server/config_values.h"

namespace ax::dns {
namespace {

bool ReadZoneSection(const YAML::Node& zones, std::vector<ZoneConfig>* out,
                     std::string* error) {
  if (!zones.IsSequence()) {
    *error = "expected a list of zones";
    return false;
  }
  static const std::set<std::string> kKeys = {"name",   "ns",      "mname",
                                              "rname",  "refresh", "retry",
                                              "expire", "minimum", "ttl"};
  for (const auto& z : zones) {
    if (!z.IsMap() || !z["name"]) {
      *error = "each zone needs a name";
      return false;
    }
    // Fields left out stay empty: ServingState::Make gives them the defaults.
    ZoneConfig zone{.name = ZoneName(z["name"].as<std::string>(""))};
    for (const auto& item : z) {
      const std::string key = item.first.as<std::string>("");
      if (!kKeys.count(key)) {
        *error = zone.name + ": unknown key \"" + key + "\"";
        return false;
      }
    }
    try {
      if (z["ns"]) {
        for (const std::string& text : z["ns"].as<std::vector<std::string>>()) {
          if (!ParseNameServer(text, &zone.ns.emplace_back(), error)) {
            *error = zone.name + ": " + *error;
            return false;
          }
        }
      }
      if (z["mname"]) zone.mname = z["mname"].as<std::string>();
      if (z["rname"]) zone.rname = z["rname"].as<std::string>();
      if (z["refresh"]) zone.refresh = z["refresh"].as<uint32_t>();
      if (z["retry"]) zone.retry = z["retry"].as<uint32_t>();
      if (z["expire"]) zone.expire = z["expire"].as<uint32_t>();
      if (z["minimum"]) zone.minimum = z["minimum"].as<uint32_t>();
      if (z["ttl"]) zone.ttl = z["ttl"].as<uint32_t>();
    } catch (const YAML::Exception& e) {
      *error = zone.name + ": " + e.what();
      return false;
    }
    out->push_back(std::move(zone));
  }
  return true;
}

}  // namespace

bool ReadConfigFile(const std::string& path, const FlagKind& is_list,
                    ConfigValues* out, std::vector<ZoneConfig>* zones,
                    std::string* error) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::Exception& e) {
    *error = "config file " + path + ": " + e.what();
    return false;
  }
  if (root.IsNull()) return true;
  if (!root.IsMap()) {
    *error = "config file " + path + ": expected a map of flag names";
    return false;
  }
  for (const auto& item : root) {
    const std::string key = item.first.as<std::string>("");
    if (key == "zones") {
      if (!ReadZoneSection(item.second, zones, error)) {
        *error = "config file " + path + ": zones: " + *error;
        return false;
      }
      continue;
    }
    const std::optional<bool> list = is_list(key);
    if (!list) {
      *error = "config file " + path;
      *error += ": unknown key \"" + key + "\"";
      return false;
    }
    std::vector<std::string> values;
    if (item.second.IsSequence() && *list) {
      for (const auto& v : item.second) values.push_back(v.as<std::string>(""));
    } else if (item.second.IsScalar()) {
      values.push_back(item.second.as<std::string>(""));
    } else {
      *error = "config file " + path;
      *error += ": " + key + ": expected a ";
      *error += *list ? "list or value" : "value";
      return false;
    }
    (*out)[key] = std::move(values);
  }
  return true;
}

}  // namespace ax::dns
