// PlanGeoOverrideStatuses (statuses.h): whether each GeoOverride is a
// proposal, applied in the route table ax-dns serves, or expired. Which
// clients it moves is core's (classify.h); nothing here classifies.
#include <algorithm>

#include "ax/rfc3339.h"
#include "status_common.h"

namespace ax::controller {
namespace {

using nlohmann::json;
using status::Ready;

bool Served(const RouteTableDecision& d, const std::string& name) {
  if (!d.in_force) return false;
  const auto& list = d.in_force->geo_overrides;
  return std::any_of(
      list.begin(), list.end(),
      [&](const SnapshotGeoOverride& o) { return o.name == name; });
}

std::string Moves(const GeoOverride& o) {
  return std::to_string(o.cidrs.size()) +
         (o.cidrs.size() == 1 ? " CIDR" : " CIDRs") + " to Region " + o.region;
}

}  // namespace

void PlanGeoOverrideStatuses(const StatusInputs& in, StatusOutput& out) {
  const int64_t now_ms = in.observed.now_ms;
  const std::vector<GeoOverride>& overrides = in.gathered.world.geo_overrides;
  status::ForEachObject(
      in.observed.geo_overrides,
      [&](const json& object, const std::string& kind_name) {
        if (auto bad = in.gathered.invalid.find(kind_name);
            bad != in.gathered.invalid.end()) {
          status::PlanInvalid(object, bad->second, "active", in, out);
          return;
        }
        const std::string name = RefOf(object).name;
        const auto it = std::find_if(
            overrides.begin(), overrides.end(),
            [&](const GeoOverride& o) { return o.meta.name == name; });
        if (it == overrides.end()) return;
        const GeoOverride& o = *it;
        const char* phase = nullptr;
        Condition ready;
        if (o.ExpiredAt(now_ms)) {
          phase = "Expired";
          ready =
              Ready(ConditionStatus::kFalse, "Expired",
                    "expiresAt " + FormatRfc3339Seconds(*o.expires_at * 1000) +
                        " has passed: the database decides again for " +
                        "its CIDRs; the GeoOverride can be deleted");
          if (status::ConditionTransition(object, ready)) {
            out.events.push_back({RefOf(object), EventType::kNormal,
                                  "GeoOverrideExpired", ready.message});
          }
        } else if (!o.approved) {
          phase = "Proposed";
          ready = Ready(ConditionStatus::kFalse, "Proposed",
                        "a proposal: it would move " + Moves(o) +
                            "; set spec.approved to true to apply it");
        } else if (Served(in.route_table, name)) {
          phase = "Active";
          ready = Ready(
              ConditionStatus::kTrue, "Active",
              "moves " + Moves(o) +
                  (o.expires_at
                       ? " until " + FormatRfc3339Seconds(*o.expires_at * 1000)
                       : ""));
        } else {
          phase = "Pending";
          ready = Ready(ConditionStatus::kFalse, "NotServed",
                        "approved, not yet in the route table ax-dns serves");
        }
        json status = {{"phase", phase},
                       {"active", std::string_view(phase) == "Active"},
                       {"region", o.region}};
        status::Emit(
            object,
            status::WithConditions(std::move(status), object, {ready}, now_ms),
            out);
      });
}

}  // namespace ax::controller
