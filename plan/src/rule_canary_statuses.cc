// PlanRuleStatuses and PlanCanaryStatuses (statuses.h): the manual overrides'
// state. A Rule is active when it shapes a route of the table ax-dns serves
// (expiry is Rule::ExpiredAt, the builder's own test); a Canary's state is the
// one ProgressCanary decided, written only once that state is served.
#include <unordered_map>

#include "ax/rfc3339.h"
#include "status_common.h"

namespace ax::controller {
namespace {

using nlohmann::json;
using status::Ready;

// Routes of `domain` in `served` that name `rule` (routes list the Rules
// that shaped them).
size_t RoutesShaped(const Snapshot* served, const std::string& domain,
                    const std::string& rule) {
  if (!served) return 0;
  size_t n = 0;
  for (const SnapshotDomain& d : served->domains) {
    if (d.name != domain) continue;
    for (uint32_t route : d.routes) {
      const std::vector<std::string>& names = served->routes[route].rules;
      n += std::find(names.begin(), names.end(), rule) != names.end();
    }
  }
  return n;
}

// The new state is served only when this plan's snapshot is in force.
bool BuiltServed(const RouteTableDecision& d) {
  return d.outcome == PublishOutcome::kPublished ||
         d.outcome == PublishOutcome::kUnchanged;
}

void CanaryEvents(const json& object, const CanaryDecision& d,
                  StatusOutput& out) {
  if (!d.event) return;
  out.events.push_back({RefOf(object),
                        d.warning ? EventType::kWarning : EventType::kNormal,
                        d.event, d.message});
}

}  // namespace

void PlanRuleStatuses(const StatusInputs& in, StatusOutput& out) {
  std::unordered_map<std::string_view, const Rule*> rules;
  for (const Rule& r : in.gathered.world.rules) rules[r.meta.name] = &r;
  const int64_t now_ms = in.observed.now_ms;
  status::ForEachObject(in.observed.rules, [&](const json& object,
                                               const std::string& kind_name) {
    if (auto bad = in.gathered.invalid.find(kind_name);
        bad != in.gathered.invalid.end()) {
      status::PlanInvalid(object, bad->second, "active", in, out);
      return;
    }
    auto it = rules.find(RefOf(object).name);
    if (it == rules.end()) return;
    const Rule& rule = *it->second;
    const bool expired = rule.ExpiredAt(now_ms);
    const size_t shaped = expired ? 0
                                  : RoutesShaped(in.route_table.in_force,
                                                 rule.domain, rule.meta.name);
    Condition ready;
    if (expired) {
      ready =
          Ready(ConditionStatus::kFalse, "Expired",
                "expiresAt " + FormatRfc3339Seconds(*rule.expires_at * 1000) +
                    " has passed: the Rule no longer applies and can be "
                    "deleted");
      if (status::ConditionTransition(object, ready)) {
        out.events.push_back(
            {RefOf(object), EventType::kNormal, "RuleExpired", ready.message});
      }
    } else if (shaped > 0) {
      ready = Ready(
          ConditionStatus::kTrue, "Active",
          "shapes " + std::to_string(shaped) + " routes of Domain " +
              rule.domain +
              (rule.expires_at
                   ? " until " + FormatRfc3339Seconds(*rule.expires_at * 1000)
                   : ""));
    } else {
      ready = Ready(ConditionStatus::kFalse, "NotApplied",
                    "shapes no route of Domain " + rule.domain +
                        " in the route table ax-dns serves (its node cannot "
                        "serve or is no candidate there, or the table is "
                        "older than the Rule)");
    }
    json status = {{"active", shaped > 0}, {"expired", expired}};
    status::Emit(
        object,
        status::WithConditions(std::move(status), object, {ready}, now_ms),
        out);
  });
}

void PlanCanaryStatuses(const StatusInputs& in, StatusOutput& out) {
  status::ForEachObject(
      in.observed.canaries,
      [&](const json& object, const std::string& kind_name) {
        if (auto bad = in.gathered.invalid.find(kind_name);
            bad != in.gathered.invalid.end()) {
          status::PlanInvalid(object, bad->second, nullptr, in, out);
          return;
        }
        auto it = in.canaries.find(RefOf(object).name);
        if (it == in.canaries.end() || !BuiltServed(in.route_table)) return;
        const CanaryDecision& d = it->second;
        const CanaryState& s = d.state;
        json status = {{"phase", CanaryPhaseName(s.phase)},
                       {"percent", s.percent},
                       {"step", s.step}};
        if (s.step_started_at_ms > 0) {
          status["stepStartedAt"] = FormatRfc3339Ms(s.step_started_at_ms);
        }
        if (s.paused_at_ms > 0) {
          status["pausedAt"] = FormatRfc3339Ms(s.paused_at_ms);
        }
        const bool serving = s.phase == CanaryPhase::kProgressing ||
                             s.phase == CanaryPhase::kPaused ||
                             s.phase == CanaryPhase::kSucceeded;
        const Condition ready =
            Ready(serving ? ConditionStatus::kTrue : ConditionStatus::kFalse,
                  d.reason, d.message);
        CanaryEvents(object, d, out);
        status::Emit(object,
                     status::WithConditions(std::move(status), object, {ready},
                                            in.observed.now_ms),
                     out);
      });
}

}  // namespace ax::controller
