// Why a probe failed, as a closed set of reasons: the `reason` label of
// ax_probe_errors_total and the prefix of ProbeResult::error. Adding a value
// here adds a metrics label value; keep the set small and stable.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace ax::probe {

enum class ProbeError : uint8_t {
  kNone,      // the check passed
  kTimeout,   // the per-probe deadline passed, in whatever phase
  kRefused,   // connection refused (nothing listens on the port)
  kConnect,   // any other socket-level failure: unreachable, reset, EPIPE
  kTls,       // handshake or certificate verification failed
  kProtocol,  // the bytes were not an HTTP/1.x response
  kStatus,    // a status code not in HealthCheck::expect_status
  kBody,      // the body did not contain HealthCheck::body_match
  kConfig,    // the target cannot be probed as given (port 0, CR/LF in host)
};

// "none", "timeout", "refused", "connect", "tls", "protocol", "status",
// "body", "config".
const char* ProbeErrorName(ProbeError error);
std::optional<ProbeError> ParseProbeError(std::string_view name);

}  // namespace ax::probe
