// Judging a received HTTP response against the node's HealthCheck (status
// list, body substring) and reading self-reported load from a JSON body.
// Pure; transport failures are classified where they happen
// (probe_connection.cc), not here.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "ax/model.h"
#include "ax/node_status.h"
#include "engine/probe_error.h"

namespace ax::probe {

struct Verdict {
  ProbeError error = ProbeError::kNone;
  std::string detail;
};

// kStatus when `status` is not in check.expect_status (an empty list accepts
// any 2xx), then kBody when check.body_match is set and not found in `body`.
// `body_truncated` only makes the detail say the body was cut.
Verdict JudgeResponse(const HealthCheck& check, int status,
                      std::string_view body, bool body_truncated);

// Load from a health body such as {"bandwidth_mbps": 812.5, "connections":
// 1200} (camelCase bandwidthMbps is accepted too). nullopt, silently, when the
// body is not a JSON object or carries neither field; a field that is not a
// finite non-negative number counts as absent.
std::optional<NodeLoad> ParseLoad(std::string_view body);

}  // namespace ax::probe
