// Prometheus instant-query replies (GET /api/v1/query) as the Canary analysis
// reads them, pure: one series' value, no data, or an error that says what
// Prometheus or the reply got wrong. Asking is metric_reader.h's.
#pragma once

#include <cstdint>
#include <string_view>

#include "ax/controller/canary_metrics.h"

namespace ax::signals {

// One instant-query reply (HTTP `status`, `body`) read at `at_ms`: one
// series' value; no data for an empty result or NaN (0/0: no requests);
// an error naming what Prometheus or the reply said.
controller::MetricReading ParsePrometheusReply(int status,
                                               std::string_view body,
                                               int64_t at_ms);

}  // namespace ax::signals
