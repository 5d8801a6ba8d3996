// StandaloneMetrics (standalone_metrics.h): the phase is a state set, one
// series per phase the plan knows, 1 for the one in force.
#include "server/standalone_metrics.h"

#include <nlohmann/json.hpp>

#include "ax/controller/canary_progress.h"
#include "ax/runtime/metric_family.h"

namespace ax::dns {
namespace {

using nlohmann::json;
using prometheus::MetricType;

constexpr controller::CanaryPhase kPhases[] = {
    controller::CanaryPhase::kPending, controller::CanaryPhase::kProgressing,
    controller::CanaryPhase::kSucceeded, controller::CanaryPhase::kFailed};

}  // namespace

void StandaloneMetrics::Observe(size_t invalid_objects, size_t manifest_errors,
                                const ApiObjects& objects) {
  std::vector<CanaryView> canaries;
  for (const json& canary : objects.canaries) {
    const json status = canary.value("status", json::object());
    if (!status.is_object() || !status.value("phase", json()).is_string()) {
      continue;
    }
    canaries.push_back({canary["metadata"].value("name", std::string()),
                        status["phase"].get<std::string>(),
                        status.value("percent", 0.0)});
  }
  std::lock_guard lock(mu_);
  invalid_objects_ = invalid_objects;
  manifest_errors_ = manifest_errors;
  canaries_ = std::move(canaries);
}

std::vector<prometheus::MetricFamily> StandaloneMetrics::Collect() const {
  std::lock_guard lock(mu_);
  std::vector<prometheus::MetricFamily> out;
  auto invalid = runtime::Family(
      "ax_dns_standalone_invalid_objects",
      "manifest objects the last plan left out as invalid (the rest is served)",
      MetricType::Gauge);
  runtime::AddSample(invalid, static_cast<double>(invalid_objects_));
  out.push_back(std::move(invalid));

  auto errors = runtime::Family(
      "ax_dns_standalone_manifest_errors",
      "manifest documents of the last read that are no object (YAML syntax, "
      "unknown kind, no name) or files that could not be read",
      MetricType::Gauge);
  runtime::AddSample(errors, static_cast<double>(manifest_errors_));
  out.push_back(std::move(errors));

  auto percent =
      runtime::Family("ax_dns_standalone_canary_percent",
                      "the share of clients each Canary sends to its node now",
                      MetricType::Gauge);
  auto phase = runtime::Family("ax_dns_standalone_canary_phase",
                               "1 for each Canary's phase, 0 for the others",
                               MetricType::Gauge);
  for (const CanaryView& c : canaries_) {
    runtime::AddSample(percent, c.percent, {{"canary", c.name}});
    for (controller::CanaryPhase p : kPhases) {
      const std::string name = controller::CanaryPhaseName(p);
      runtime::AddSample(phase, name == c.phase ? 1 : 0,
                         {{"canary", c.name}, {"phase", name}});
    }
  }
  out.push_back(std::move(percent));
  out.push_back(std::move(phase));
  return out;
}

}  // namespace ax::dns
