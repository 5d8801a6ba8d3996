// Judging a received HTTP response against the node's HealthCheck (status
// list, body substring) and reading self-reported load and error rate from a
// JSON body.
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

// What a node says about itself in its health body.
struct SelfReport {
  std::optional<NodeLoad> load;
  std::optional<double> error_rate;  // share of requests failed lately, 0..1
};

// From a health body such as {"bandwidth_mbps": 812.5, "connections": 1200,
// "errorRate": 0.003} (bandwidthMbps and error_rate are accepted too). Load
// is absent when the body carries neither load field, both are absent when
// it is not a JSON object, silently: most bodies are a plain "OK". A load
// field that is not a finite number >= 0, or an error rate outside [0, 1]
// (a percentage is not a ratio), counts as absent.
SelfReport ParseSelfReport(std::string_view body);

}  // namespace ax::probe
