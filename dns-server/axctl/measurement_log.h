// Reading client measurements for `axctl geo suggest`: JSON lines (one
// object per line: client, node, ttfbMs / rttMs / ms, time) and node access
// logs in nginx's combined format with $request_time appended (the node is
// named per file). Errors name the file, line and field. Parsing only: what
// the measurements mean is core's (geo_suggest.h).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ax/measurement_report.h"

namespace ax {

struct LogError {
  std::string file;
  size_t line = 0;
  std::string message;
  std::string ToString() const;
};

// Appends the measurements of each line of `text` (from `file`); a bad line
// adds an error and nothing else. Blank lines are skipped.
void ParseJsonLines(std::string_view text, const std::string& file,
                    std::vector<Measurement>& out,
                    std::vector<LogError>& errors);

// nginx `log_format ax_timing '$remote_addr - $remote_user [$time_local] '
// '"$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" '
// '$request_time';` lines of node `node`: the client, the time, and the
// request time (seconds, as the last field).
void ParseAccessLog(std::string_view text, const std::string& file,
                    const std::string& node, std::vector<Measurement>& out,
                    std::vector<LogError>& errors);

}  // namespace ax
