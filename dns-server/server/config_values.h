// Text -> value parsers for configuration (durations, sizes, booleans,
// bounded integers, name servers). Shared by flags, env and the config
// file so that a value means the same wherever it is written.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "responder/serving_state.h"

namespace ax::dns {

// "250ms", "10s", "2m", "1h"; a bare number is seconds.
bool ParseDuration(std::string_view text, std::chrono::milliseconds* out,
                   std::string* error);
// "4194304", "512KiB", "4MiB" (also k/K/KB and m/M/MB, all binary).
bool ParseByteSize(std::string_view text, int64_t* out, std::string* error);
// true/false, yes/no, on/off, 1/0.
bool ParseBool(std::string_view text, bool* out, std::string* error);
// A zone name as ZoneConfig wants it: lower case, no trailing dot.
std::string ZoneName(std::string_view text);
// "NAME[@ADDR]...": a name server and its IPv4/IPv6 addresses, e.g.
// "ns1.example.test@192.0.2.53@2001:db8::53" (NAME as ZoneName makes it).
bool ParseNameServer(std::string_view text, NameServer* out,
                     std::string* error);
bool ParseInt(std::string_view text, int64_t min, int64_t max, int64_t* out,
              std::string* error);

}  // namespace ax::dns
