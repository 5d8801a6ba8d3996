// PlanNodeStatuses (statuses.h): what the operator believes about each Node —
// health as the snapshot builder took it, the quorum's measurements and each
// vantage's vote. Measurements alone (latency, load, error rate, report
// times) change with every probe, so they trigger a write only past
// PlanOptions' measurement_tolerance; anything else (health, votes,
// conditions) always does.
#include <algorithm>
#include <unordered_map>

#include "ax/controller/measurement_hold.h"
#include "ax/controller/status_update.h"
#include "ax/rfc3339.h"
#include "node_drain.h"
#include "status_common.h"

namespace ax::controller {
namespace {

using nlohmann::json;
using status::Ready;
using status::Round;

constexpr size_t kMaxVantages = 256;  // the CRD's maxItems

std::string Join(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// "2 up, 1 down of 3 counted vantages (stale: c; cut off: d)". No ages, so an
// unchanged vote gives an unchanged message.
std::string VoteSummary(const NodeVerdict* v) {
  if (!v) return "no ProbeReport covers it";
  std::string out = std::to_string(v->up_votes) + " up, " +
                    std::to_string(v->down_votes) + " down";
  if (v->unknown_votes)
    out += ", " + std::to_string(v->unknown_votes) + " unknown";
  out += " of " + std::to_string(v->counted.size()) + " counted vantages";
  std::string notes;
  if (!v->stale.empty()) notes += "stale: " + Join(v->stale);
  if (!v->discounted.empty()) {
    notes += (notes.empty() ? "" : "; ") + std::string("cut off: ") +
             Join(v->discounted);
  }
  return notes.empty() ? out : out + " (" + notes + ")";
}

// "adminState Drain until T (why)": the admin state in force, set for how long
// and why.
std::string AdminStateSaid(const Node& spec, AdminState in_force) {
  std::string out = "adminState " + std::string(AdminStateName(in_force));
  if (spec.admin_state_expires_at) {
    out +=
        " until " + FormatRfc3339Seconds(*spec.admin_state_expires_at * 1000);
  }
  if (!spec.admin_state_reason.empty()) {
    out += " (" + spec.admin_state_reason + ")";
  }
  return out;
}

Condition NodeReady(const Node& spec, const SnapshotNode& node,
                    const NodeVerdict* verdict) {
  if (node.admin_state == AdminState::kDisabled) {
    return Ready(ConditionStatus::kFalse, "Disabled",
                 AdminStateSaid(spec, node.admin_state) + ": never in answers");
  }
  if (node.admin_state == AdminState::kDrain) {
    return Ready(
        ConditionStatus::kFalse, "Draining",
        AdminStateSaid(spec, node.admin_state) + ": left out of answers");
  }
  if (!spec.health_check) {
    return Ready(ConditionStatus::kTrue, "NotProbed",
                 "no healthCheck: as healthy as its adminState says");
  }
  switch (node.health) {
    case Health::kUp:
      return Ready(ConditionStatus::kTrue, "Up", VoteSummary(verdict));
    case Health::kDown:
      return Ready(ConditionStatus::kFalse, "Down", VoteSummary(verdict));
    case Health::kUnknown:
      break;
  }
  return Ready(ConditionStatus::kUnknown, "NoVerdict",
               "no fresh Up or Down vote: " + VoteSummary(verdict));
}

// Keeps the current healthChangedAt while the health holds.
void SetHealthChangedAt(const SnapshotNode& node, const NodeVerdict* verdict,
                        const json* current, int64_t now_ms, json& status) {
  const std::string health = HealthName(node.health);
  if (verdict && verdict->health == node.health &&
      verdict->health_changed_at_ms > 0) {
    status["healthChangedAt"] = FormatRfc3339Ms(verdict->health_changed_at_ms);
    return;
  }
  const std::string before =
      current ? current->value("health", std::string()) : std::string();
  if (before == health && current->contains("healthChangedAt")) {
    status["healthChangedAt"] = (*current)["healthChangedAt"];
  } else if (node.health != Health::kUnknown || !before.empty()) {
    status["healthChangedAt"] = FormatRfc3339Ms(now_ms);
  }
}

json Vantages(const std::vector<VantageView>& views) {
  json out = json::array();
  for (const VantageView& v : views) {
    if (out.size() == kMaxVantages) break;
    json entry = {{"vantage", v.vantage},
                  {"health", HealthName(v.health)},
                  {"vote", VoteName(v.vote)},
                  {"observedAt", FormatRfc3339Ms(v.observed_at_ms)}};
    if (v.latency_ms) entry["latencyMs"] = Round(*v.latency_ms, 3);
    out.push_back(std::move(entry));
  }
  return out;
}

// ---- measurement tolerance ----

// Removes the measured fields, leaving what must match exactly.
json WithoutMeasurements(json status) {
  for (const char* key : {"latencyMs", "load", "loadPercent", "errorRate"})
    status.erase(key);
  if (auto v = status.find("vantages"); v != status.end() && v->is_array()) {
    for (json& entry : *v) {
      if (!entry.is_object()) continue;
      entry.erase("latencyMs");
      entry.erase("observedAt");
    }
  }
  return status;
}

// Both absent, or both measurements (never negative) within `share` of the
// larger (or `floor`).
bool Close(const json& a, const json& b, double share, double floor) {
  if (a.is_null() || b.is_null()) return a.is_null() && b.is_null();
  if (!a.is_number() || !b.is_number()) return a == b;
  return WithinTolerance(a.get<double>(), b.get<double>(), share, floor);
}

json At(const json& obj, const char* key) {
  return obj.is_object() ? obj.value(key, json()) : json();
}

bool MeasurementsClose(const json& a, const json& b, double share) {
  if (!Close(At(a, "latencyMs"), At(b, "latencyMs"), share, 1.0) ||
      !Close(At(a, "loadPercent"), At(b, "loadPercent"), share, 5.0) ||
      !Close(At(a, "errorRate"), At(b, "errorRate"), share, kErrorRateFloor)) {
    return false;
  }
  const json la = At(a, "load"), lb = At(b, "load");
  if (la.is_null() != lb.is_null()) return false;
  for (const char* key : {"bandwidthMbps", "connections"}) {
    if (!Close(At(la, key), At(lb, key), share, 1.0)) return false;
  }
  const json va = At(a, "vantages"), vb = At(b, "vantages");
  for (size_t i = 0;
       va.is_array() && vb.is_array() && i < va.size() && i < vb.size(); ++i) {
    if (!Close(At(va[i], "latencyMs"), At(vb[i], "latencyMs"), share, 1.0)) {
      return false;
    }
  }
  return true;
}

// Whether writing `desired` over `current` is worth an API call.
bool WorthWriting(const json* current, const json& desired, double share) {
  if (!current) return true;
  return WithoutMeasurements(*current) != WithoutMeasurements(desired) ||
         !MeasurementsClose(*current, desired, share);
}

void NodeEvents(const json& object, const json* current,
                const SnapshotNode& node, const Condition& ready,
                StatusOutput& out) {
  const std::string before =
      current ? current->value("health", std::string()) : std::string();
  if (node.health == Health::kDown && before != "Down") {
    out.events.push_back(
        {RefOf(object), EventType::kWarning, "NodeDown", ready.message});
  } else if (node.health == Health::kUp && before == "Down") {
    out.events.push_back(
        {RefOf(object), EventType::kNormal, "NodeUp", ready.message});
  }
}

}  // namespace

void PlanNodeStatuses(const StatusInputs& in, StatusOutput& out) {
  if (!in.built) return;
  std::unordered_map<std::string_view, const SnapshotNode*> built;
  for (const SnapshotNode& n : in.built->nodes) built[n.name] = &n;
  std::unordered_map<std::string_view, const Node*> specs;
  for (const Node& n : in.gathered.world.nodes) specs[n.meta.name] = &n;
  const int64_t now_ms = in.observed.now_ms;

  status::ForEachObject(in.observed.nodes, [&](const json& object,
                                               const std::string& kind_name) {
    if (auto bad = in.gathered.invalid.find(kind_name);
        bad != in.gathered.invalid.end()) {
      status::PlanInvalid(object, bad->second, nullptr, in, out);
      return;
    }
    const std::string name = RefOf(object).name;
    auto node_it = built.find(name);
    auto spec_it = specs.find(name);
    if (node_it == built.end() || spec_it == specs.end()) return;
    const SnapshotNode& node = *node_it->second;
    auto v = in.health.quorum.nodes.find(name);
    const NodeVerdict* verdict =
        v == in.health.quorum.nodes.end() ? nullptr : &v->second;
    const json* current = CurrentStatus(object);

    json status = {{"health", HealthName(node.health)}};
    SetHealthChangedAt(node, verdict, current, now_ms, status);
    if (verdict && verdict->latency_ms) {
      status["latencyMs"] = Round(*verdict->latency_ms, 3);
    }
    if (verdict && verdict->load) {
      status["load"] = {
          {"bandwidthMbps", Round(verdict->load->bandwidth_mbps, 3)},
          {"connections", Round(verdict->load->connections, 3)}};
    }
    if (verdict && verdict->error_rate) {
      status["errorRate"] = Round(*verdict->error_rate, 6);
    }
    if (node.utilisation >= 0) {
      status["loadPercent"] = Round(node.utilisation * 100, 2);
    }
    if (auto views = in.health.vantages.find(name);
        views != in.health.vantages.end()) {
      status["vantages"] = Vantages(views->second);
    }
    const DrainStatus drain = PlanDrain(
        *spec_it->second, in.route_table.in_force,
        LongestTtlFor(in.gathered.world, *spec_it->second), current, now_ms);
    if (drain.left_answers_ms) {
      status["leftAnswersAt"] = FormatRfc3339Ms(*drain.left_answers_ms);
    }
    if (drain.wake_ms) {
      out.wake_ms =
          std::min(out.wake_ms.value_or(*drain.wake_ms), *drain.wake_ms);
    }
    const Condition ready = NodeReady(*spec_it->second, node, verdict);
    NodeEvents(object, current, node, ready, out);
    if (drain.drained.status == ConditionStatus::kTrue &&
        status::ConditionTransition(object, drain.drained)) {
      out.events.push_back({RefOf(object), EventType::kNormal, "NodeDrained",
                            drain.drained.message});
    }
    status = status::WithConditions(std::move(status), object,
                                    {ready, drain.drained}, now_ms);
    if (WorthWriting(current, status,
                     in.observed.options.measurement_tolerance)) {
      status::Emit(object, std::move(status), out);
    }
  });
}

}  // namespace ax::controller
