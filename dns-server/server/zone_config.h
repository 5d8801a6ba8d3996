// The zone settings as ax-dns's configuration spells them: zone names, name
// servers "NAME[@ADDR]..." (the --zone flag) and the config file's `zones:`
// section. What a zone serves is responder/serving_state.h's.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <string_view>
#include <vector>

#include "responder/serving_state.h"

namespace ax::dns {

// A zone name as ZoneConfig wants it: lower case, no trailing dot.
std::string ZoneName(std::string_view text);

// "NAME[@ADDR]...": a name server and its IPv4/IPv6 addresses, e.g.
// "ns1.example.test@192.0.2.53@2001:db8::53" (NAME as ZoneName makes it).
bool ParseNameServer(std::string_view text, NameServer* out,
                     std::string* error);

// Appends the `zones:` list (ZoneConfig fields; `ns` items as ParseNameServer
// reads them) to `out`. Fields left out stay empty: ServingState::Make gives
// them the defaults. Unknown keys and bad values are errors naming the zone.
bool ReadZoneSection(const YAML::Node& zones, std::vector<ZoneConfig>* out,
                     std::string* error);

}  // namespace ax::dns
