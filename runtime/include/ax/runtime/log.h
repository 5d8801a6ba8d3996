// Structured logging for every Ax binary: one JSON object per line on stderr
// ({"ts":..., "level":..., "msg":..., fields...}). For control-plane events
// (loads, errors, start/stop), never per query: the query path does not log.
#pragma once

#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string_view>
#include <utility>

namespace ax::runtime {

enum class LogLevel : uint8_t { kDebug, kInfo, kWarn, kError };

// Ordered, so every line reads ts, level, msg, then the fields as given.
using LogFields =
    std::initializer_list<std::pair<const char*, nlohmann::ordered_json>>;

// Lines below `level` are skipped. Default: kInfo.
void SetLogLevel(LogLevel level);
bool ParseLogLevel(std::string_view name, LogLevel* level);

// Writes one line with a single write(2), so lines from threads never mix.
void Log(LogLevel level, std::string_view msg, LogFields fields = {});

}  // namespace ax::runtime
