// StandalonePipeline (standalone_pipeline.h): the ObservedState is held
// between passes, so a pass copies nothing; the report is the one object
// replaced every pass.
#include "server/standalone_pipeline.h"

#include <limits>
#include <utility>

namespace ax::dns {
namespace {

using nlohmann::json;

size_t ValidDomains(const controller::ObservedState& observed,
                    const controller::Plan& plan) {
  size_t valid = 0;
  for (const json& domain : observed.domains) {
    const std::string name =
        domain.value("metadata", json::object()).value("name", std::string());
    valid += !plan.invalid_objects.contains("Domain/" + name);
  }
  return valid;
}

}  // namespace

controller::PlanOptions StandalonePlanOptions(size_t history_depth) {
  controller::PlanOptions options;
  options.history_depth = history_depth;
  options.max_config_map_bytes = std::numeric_limits<size_t>::max();
  options.gzip_threshold_bytes = std::numeric_limits<size_t>::max();
  return options;
}

StandalonePipeline::StandalonePipeline(controller::PlanOptions options) {
  observed_.options = std::move(options);
}

void StandalonePipeline::SetObjects(ManifestObjects read) {
  ReplaceObjects(std::move(read), observed_, sources_);
}

StandalonePass StandalonePipeline::Plan(controller::CanaryReadings readings,
                                        const ProbeReport& report,
                                        std::vector<json> others,
                                        int64_t now_ms) {
  std::vector<json> reports = {ProbeReportToJson(report)};
  for (json& other : others) reports.push_back(std::move(other));
  for (json& object : reports) {
    // Without metadata the report is invalid, which the plan says by name.
    if (!object.contains("metadata") || !object["metadata"].is_object()) {
      continue;
    }
    object["metadata"]["generation"] = 1;
    // As the API keeps a report's status while ax-probe rewrites its spec.
    for (const json& held : observed_.probe_reports) {
      if (held.contains("status") &&
          held.value("metadata", json()) == object["metadata"]) {
        object["status"] = held["status"];
      }
    }
  }
  observed_.probe_reports = std::move(reports);
  observed_.canary_readings = std::move(readings);
  observed_.now_ms = now_ms;

  StandalonePass pass{.plan = controller::ComputePlan(observed_)};
  pass.valid_domains = ValidDomains(observed_, pass.plan);
  if (pass.plan.route_table) {
    ParseRouteTableResult parsed =
        ParseRouteTableConfigMap(*pass.plan.route_table);
    if (parsed.snapshot) {
      pass.snapshot =
          std::make_shared<const Snapshot>(std::move(*parsed.snapshot));
    } else {
      pass.unreadable = std::move(parsed.error);
    }
  }
  return pass;
}

std::vector<StatusChange> StandalonePipeline::Commit(
    const controller::Plan& plan) {
  if (plan.route_table) observed_.route_table = *plan.route_table;
  for (const std::string& name : plan.history_deletes) {
    std::erase_if(observed_.history, [&name](const json& config_map) {
      return config_map["metadata"].value("name", std::string()) == name;
    });
  }
  observed_.history.insert(observed_.history.end(),
                           plan.history_creates.begin(),
                           plan.history_creates.end());
  std::vector<StatusChange> changes;
  for (const controller::StatusUpdate& update : plan.status_updates) {
    if (std::optional<json> before = WriteStatus(update, observed_)) {
      changes.push_back(
          {update.object.KindName(), std::move(*before), update.status});
    }
  }
  return changes;
}

}  // namespace ax::dns
