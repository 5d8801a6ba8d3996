// The bytes of one probe request: HTTP/1.1 GET with Connection: close, the
// Host header and the probe token. Pure. Rejects values that would let a
// manifest inject header lines.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "engine/target.h"

namespace ax::probe {

inline constexpr std::string_view kDefaultTokenHeader = "X-Ax-Probe-Token";

// The Host header value: check.host if set, else the address literal ("[v6]"
// bracketed), with ":port" unless it is the scheme's default port.
std::string HostHeader(const ProbeTarget& target);

// The request, or nullopt with `error` set when the path, host, token or
// header name holds CR, LF or NUL.
std::optional<std::string> BuildRequest(const ProbeTarget& target,
                                        std::string_view token_header,
                                        std::string* error);

}  // namespace ax::probe
