// Text -> value parsers for configuration (durations, sizes, booleans,
// bounded integers). Shared by flags, env and the config file of every
// binary, so that a value means the same wherever it is written.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace ax::runtime {

// "250ms", "10s", "2m", "1h"; a bare number is seconds.
bool ParseDuration(std::string_view text, std::chrono::milliseconds* out,
                   std::string* error);
// "4194304", "512KiB", "4MiB" (also k/K/KB and m/M/MB, all binary).
bool ParseByteSize(std::string_view text, int64_t* out, std::string* error);
// true/false, yes/no, on/off, 1/0.
bool ParseBool(std::string_view text, bool* out, std::string* error);
bool ParseInt(std::string_view text, int64_t min, int64_t max, int64_t* out,
              std::string* error);
// "text" in double quotes, as error messages cite what they refuse.
std::string Quote(std::string_view text);

}  // namespace ax::runtime
