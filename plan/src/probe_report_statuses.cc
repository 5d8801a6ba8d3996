// PlanProbeReportStatuses (statuses.h): how the quorum treated each report
// (DecideNodeHealth's ReportUse), so `kubectl get axpr` shows which vantages
// count. Messages carry observedAt, never an age, so they hold still. A
// member cluster's reports get none here (their objects are the member's).
#include "ax/rfc3339.h"
#include "status_common.h"

namespace ax::controller {

using nlohmann::json;
using status::Ready;

void PlanProbeReportStatuses(const StatusInputs& in, StatusOutput& out) {
  const std::vector<json>& objects = in.observed.probe_reports;
  const QuorumPolicy& policy = in.observed.options.quorum;
  for (size_t i = 0; i < objects.size() && i < in.health.reports.size(); ++i) {
    const json& object = objects[i];
    const ReportView& view = in.health.reports[i];
    if (view.object.name.empty()) continue;
    if (object.value("metadata", json::object())
            .value("annotations", json::object())
            .contains(kMemberAnnotation)) {
      continue;  // its status is the member's
    }
    if (view.use == ReportUse::kInvalid) {
      status::PlanInvalid(object, view.errors, nullptr, in, out);
      continue;
    }
    const std::string observed = FormatRfc3339Ms(view.observed_at_ms);
    Condition ready;
    switch (view.use) {
      case ReportUse::kCounted:
      case ReportUse::kInvalid:
        ready = Ready(ConditionStatus::kTrue, "Counted",
                      "its votes count in the quorum");
        break;
      case ReportUse::kStale:
        ready = Ready(ConditionStatus::kFalse, "Stale",
                      "observedAt " + observed +
                          " is older than the quorum's max age of " +
                          std::to_string(policy.max_age_ms) +
                          " ms: its votes do not count");
        break;
      case ReportUse::kFuture:
        ready = Ready(ConditionStatus::kFalse, "FromTheFuture",
                      "observedAt " + observed + " is more than " +
                          std::to_string(policy.max_future_ms) +
                          " ms ahead of the operator's clock: ignored until "
                          "then (a skewed clock, or a forged report)");
        break;
      case ReportUse::kDiscounted:
        ready = Ready(ConditionStatus::kFalse, "CutOff",
                      "vantage " + view.vantage +
                          " sees every node Down while others see some Up: "
                          "probably cut off, its votes do not count");
        break;
      case ReportUse::kSuperseded:
        ready = Ready(
            ConditionStatus::kFalse, "Superseded",
            "a fresher report of vantage " + view.vantage + " counts instead");
        break;
    }
    json status = {
        {"stale", IsStale(view.observed_at_ms, in.observed.now_ms, policy)}};
    status::Emit(object,
                 status::WithConditions(std::move(status), object, {ready},
                                        in.observed.now_ms),
                 out);
  }
}

}  // namespace ax::controller
