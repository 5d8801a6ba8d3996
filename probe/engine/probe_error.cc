// ProbeError names (probe_error.h), written once for both directions.
#include "engine/probe_error.h"

#include "ax/enum_names.h"

namespace ax::probe {

namespace {
constexpr NameTable<ProbeError, 9> kProbeErrorNames{{
    {ProbeError::kNone, "none"},
    {ProbeError::kTimeout, "timeout"},
    {ProbeError::kRefused, "refused"},
    {ProbeError::kConnect, "connect"},
    {ProbeError::kTls, "tls"},
    {ProbeError::kProtocol, "protocol"},
    {ProbeError::kStatus, "status"},
    {ProbeError::kBody, "body"},
    {ProbeError::kConfig, "config"},
}};
}  // namespace

const char* ProbeErrorName(ProbeError error) {
  return NameOf(kProbeErrorNames, error);
}

std::optional<ProbeError> ParseProbeError(std::string_view name) {
  return ValueOf(kProbeErrorNames, name);
}

}  // namespace ax::probe
