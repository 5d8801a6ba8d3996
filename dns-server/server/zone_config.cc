// Zone names, name servers and the `zones:` section (zone_config.h).
#include "server/zone_config.h"

#include <optional>
#include <set>

#include "ax/ip.h"
#include "ax/runtime/config_values.h"

namespace ax::dns {

std::string ZoneName(std::string_view text) {
  std::string name(text);
  if (!name.empty() && name.back() == '.') name.pop_back();
  for (char& ch : name) {
    ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  }
  return name;
}

bool ParseNameServer(std::string_view text, NameServer* out,
                     std::string* error) {
  const size_t at = text.find('@');
  NameServer ns{.name = ZoneName(text.substr(0, at))};
  if (ns.name.empty()) {
    *error = "name server " + runtime::Quote(text) +
             " has no name (want NAME[@ADDR]...)";
    return false;
  }
  for (size_t start = at; start != std::string_view::npos;) {
    const size_t end = text.find('@', start + 1);
    const std::string_view address = text.substr(
        start + 1, end == std::string_view::npos ? end : end - start - 1);
    const std::optional<IpAddress> ip = ParseIp(address);
    if (!ip) {
      *error = "name server " + runtime::Quote(text) + ": " +
               runtime::Quote(address) + " is not an IP address";
      return false;
    }
    ns.addresses.push_back(*ip);
    start = end;
  }
  *out = std::move(ns);
  return true;
}

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

}  // namespace ax::dns
