// Response judgement and load parsing (verdict.h).
#include "engine/verdict.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

namespace ax::probe {

namespace {

std::optional<double> NonNegativeNumber(const nlohmann::json& object,
                                        const char* key) {
  const auto it = object.find(key);
  if (it == object.end() || !it->is_number()) return std::nullopt;
  const double value = it->get<double>();
  if (!std::isfinite(value) || value < 0) return std::nullopt;
  return value;
}

}  // namespace

Verdict JudgeResponse(const HealthCheck& check, int status,
                      std::string_view body, bool body_truncated) {
  const auto& expected = check.expect_status;
  const bool status_ok = expected.empty()
                             ? (status >= 200 && status < 300)
                             : std::find(expected.begin(), expected.end(),
                                         status) != expected.end();
  if (!status_ok) {
    return {ProbeError::kStatus, "unexpected status " + std::to_string(status)};
  }
  if (!check.body_match.empty() &&
      body.find(check.body_match) == std::string_view::npos) {
    std::string detail = "body does not contain the expected text";
    if (body_truncated) {
      detail += " in its first " + std::to_string(body.size()) + " bytes";
    }
    return {ProbeError::kBody, std::move(detail)};
  }
  return {};
}

SelfReport ParseSelfReport(std::string_view body) {
  // Cheap pre-check: most health bodies are "OK"; skip the parser for them.
  const size_t first = body.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || body[first] != '{') return {};
  const nlohmann::json doc = nlohmann::json::parse(
      body.begin(), body.end(), /*cb=*/nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) return {};

  SelfReport out;
  std::optional<double> bandwidth = NonNegativeNumber(doc, "bandwidth_mbps");
  if (!bandwidth) bandwidth = NonNegativeNumber(doc, "bandwidthMbps");
  const std::optional<double> connections =
      NonNegativeNumber(doc, "connections");
  if (bandwidth || connections) {
    out.load = NodeLoad{.bandwidth_mbps = bandwidth.value_or(0),
                        .connections = connections.value_or(0)};
  }
  std::optional<double> error_rate = NonNegativeNumber(doc, "errorRate");
  if (!error_rate) error_rate = NonNegativeNumber(doc, "error_rate");
  if (error_rate && *error_rate <= 1) out.error_rate = error_rate;
  return out;
}

}  // namespace ax::probe
