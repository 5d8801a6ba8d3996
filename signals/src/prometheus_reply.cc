// Prometheus instant-query replies (prometheus_reply.h).
#include "ax/signals/prometheus_reply.h"

#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

namespace ax::signals {
namespace {

using controller::MetricReading;
using nlohmann::json;

MetricReading Error(int64_t at_ms, std::string why) {
  return {std::nullopt, at_ms, std::move(why)};
}

// [time, "value"] of an instant vector's sample or a scalar.
MetricReading SampleValue(const json& sample, int64_t at_ms) {
  if (!sample.is_array() || sample.size() != 2 || !sample[1].is_string()) {
    return Error(at_ms, "Prometheus reply: a sample is not [time, \"value\"]");
  }
  const std::string& text = sample[1].get_ref<const std::string&>();
  // Prometheus writes NaN, +Inf and -Inf so; strtod reads them all.
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0') {
    return Error(at_ms,
                 "Prometheus reply: value \"" + text + "\" is no number");
  }
  if (std::isnan(v)) {
    return Error(at_ms,
                 "no data: the value is NaN (a ratio over no requests?)");
  }
  return {v, at_ms, ""};
}

}  // namespace

MetricReading ParsePrometheusReply(int status, std::string_view body,
                                   int64_t at_ms) {
  const json reply = json::parse(body, nullptr, false);
  if (!reply.is_object()) {
    return Error(at_ms, "Prometheus HTTP " + std::to_string(status) +
                            ": the reply is not JSON");
  }
  if (reply.value("status", "") != "success") {
    return Error(at_ms, "Prometheus HTTP " + std::to_string(status) + ": " +
                            reply.value("errorType", "error") + ": " +
                            reply.value("error", "(no message)"));
  }
  const json data = reply.value("data", json::object());
  const std::string type = data.value("resultType", "");
  const json result = data.value("result", json());
  if (type == "scalar") return SampleValue(result, at_ms);
  if (type != "vector" || !result.is_array()) {
    return Error(at_ms,
                 "the query gives a " + type + ", not one instant value");
  }
  if (result.empty()) return Error(at_ms, "no data: the query gives no series");
  if (result.size() > 1) {
    return Error(at_ms, "the query gives " + std::to_string(result.size()) +
                            " series; aggregate them to one, e.g. sum(...)");
  }
  return SampleValue(result[0].value("value", json()), at_ms);
}

}  // namespace ax::signals
