// StatusModel and StatusText (status_report.h).
#include "axctl/status_report.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>

#include "ax/controller/route_table_plan.h"
#include "ax/rfc3339.h"
#include "ax/route_table_configmap.h"
#include "ax/runtime/config_values.h"
#include "axctl/text_table.h"

namespace ax {
namespace {

using nlohmann::json;

const json& Field(const json& object, const char* part) {
  static const json kEmpty = json::object();
  auto it = object.find(part);
  return it != object.end() && it->is_object() ? *it : kEmpty;
}

std::string Str(const json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

std::string NameOf(const json& object) {
  return Str(Field(object, "metadata"), "name");
}

// Milliseconds from now to an RFC 3339 time (negative: past); nullopt if
// absent or malformed.
std::optional<int64_t> Until(const std::string& at, int64_t now_ms) {
  if (at.empty()) return std::nullopt;
  const std::optional<int64_t> t = ParseRfc3339Ms(at);
  if (!t) return std::nullopt;
  return *t - now_ms;
}

json RouteTablePart(const StatusInputs& in) {
  json out = {{"name", in.route_table}};
  if (!in.config_map) {
    out["error"] = "not found";
    return out;
  }
  const json& annotations =
      Field(Field(*in.config_map, "metadata"), "annotations");
  const std::string rollback =
      Str(annotations, controller::kRollbackAnnotation);
  if (!rollback.empty()) out["rollbackTo"] = rollback;
  if (!in.served) {
    out["error"] = in.served_error;
    return out;
  }
  out["version"] = in.served->version;
  out["contentHash"] = in.served->content_hash;
  out["generatedAt"] = FormatRfc3339Seconds(in.served->generated_at_ms);
  out["ageSeconds"] = (in.now_ms - in.served->generated_at_ms) / 1000;
  return out;
}

json ReplicasPart(const StatusInputs& in, uint64_t published) {
  json out = json::array();
  for (const json& report : in.reports) {
    const json& spec = Field(report, "spec");
    json r = {{"vantage", Str(spec, "vantage")}};
    if (auto age = Until(Str(spec, "observedAt"), in.now_ms)) {
      r["reportedSecondsAgo"] = -*age / 1000;
    }
    const json& served = Field(spec, "served");
    if (served.contains("version") && served["version"].is_number_integer() &&
        served["version"].get<int64_t>() > 0) {
      const uint64_t v = served["version"].get<uint64_t>();
      r["servedVersion"] = v;
      r["behind"] = published > 0 && v < published;
      if (auto age = Until(Str(served, "loadedAt"), in.now_ms)) {
        r["loadedSecondsAgo"] = -*age / 1000;
      }
    }
    out.push_back(std::move(r));
  }
  return out;
}

json NodesPart(const StatusInputs& in) {
  // Per node, the vantage groups of the served table that see it Down.
  std::map<std::string, std::vector<std::string>> down_for;
  if (in.served) {
    for (const SnapshotVantageGroup& g : in.served->vantage_groups) {
      for (const GroupNodeView& v : g.nodes) {
        if (v.health == Health::kDown && v.node < in.served->nodes.size()) {
          down_for[in.served->nodes[v.node].name].push_back(g.name);
        }
      }
    }
  }
  json out = json::array();
  for (const json& node : in.nodes) {
    const json& spec = Field(node, "spec");
    const json& status = Field(node, "status");
    const std::string name = NameOf(node);
    json n = {
        {"name", name},
        {"health",
         Str(status, "health").empty() ? "Unknown" : Str(status, "health")},
        {"adminState",
         Str(spec, "adminState").empty() ? "Active" : Str(spec, "adminState")}};
    if (auto left = Until(Str(spec, "adminStateExpiresAt"), in.now_ms)) {
      n["adminStateSecondsLeft"] = std::max<int64_t>(0, *left / 1000);
    }
    if (!Str(spec, "adminStateReason").empty()) {
      n["adminStateReason"] = Str(spec, "adminStateReason");
    }
    if (status.contains("loadPercent") && status["loadPercent"].is_number()) {
      n["loadPercent"] = status["loadPercent"];
    }
    n["downForGroups"] = down_for[name];
    out.push_back(std::move(n));
  }
  return out;
}

std::string MatchText(const json& match) {
  std::string out;
  for (const auto& [key, value] : match.items()) {
    if (!out.empty()) out += ",";
    out += key + "=" +
           (value.is_string() ? value.get<std::string>() : value.dump());
  }
  return out.empty() ? "*" : out;
}

json RulesPart(const StatusInputs& in) {
  json out = json::array();
  for (const json& rule : in.rules) {
    const json& spec = Field(rule, "spec");
    const json& status = Field(rule, "status");
    json r = {{"name", NameOf(rule)},
              {"action", Str(spec, "action")},
              {"node", Str(spec, "node")},
              {"domain", Str(spec, "domain")},
              {"match", MatchText(Field(spec, "match"))},
              {"active", status.value("active", false)},
              {"expired", status.value("expired", false)}};
    if (auto left = Until(Str(spec, "expiresAt"), in.now_ms)) {
      r["secondsLeft"] = std::max<int64_t>(0, *left / 1000);
    }
    if (!Str(spec, "reason").empty()) r["reason"] = Str(spec, "reason");
    out.push_back(std::move(r));
  }
  return out;
}

json CanariesPart(const StatusInputs& in) {
  json out = json::array();
  for (const json& canary : in.canaries) {
    const json& spec = Field(canary, "spec");
    const json& status = Field(canary, "status");
    const json steps = spec.value("steps", json::array());
    const std::string phase =
        Str(status, "phase").empty() ? "Pending" : Str(status, "phase");
    const int64_t step =
        status.contains("step") && status["step"].is_number_integer()
            ? std::max<int64_t>(0, status["step"].get<int64_t>())
            : 0;
    json c = {{"name", NameOf(canary)},
              {"domain", Str(spec, "domain")},
              {"node", Str(spec, "node")},
              {"phase", phase},
              {"step", step + 1},
              {"steps", steps.size()},
              {"percent", status.value("percent", 0.0)}};
    // The next step is due when the step's pause has passed since it began;
    // a paused rollout has what was left when it paused.
    const json pause = step < static_cast<int64_t>(steps.size())
                           ? steps[step].value("pause", json())
                           : json();
    const std::optional<int64_t> started =
        ParseRfc3339Ms(Str(status, "stepStartedAt"));
    int64_t pause_ms = -1;
    if (pause.is_number_integer()) pause_ms = pause.get<int64_t>() * 1000;
    if (pause.is_string()) {
      std::chrono::milliseconds d{};
      std::string error;
      if (runtime::ParseDuration(pause.get<std::string>(), &d, &error)) {
        pause_ms = d.count();
      }
    }
    if (started && pause_ms >= 0 &&
        (phase == "Progressing" || phase == "Paused")) {
      const std::optional<int64_t> paused =
          ParseRfc3339Ms(Str(status, "pausedAt"));
      const int64_t from = phase == "Paused" && paused ? *paused : in.now_ms;
      c["nextStepSeconds"] =
          std::max<int64_t>(0, (*started + pause_ms - from) / 1000);
    }
    // What the plan says about the rollout: what it waits for, why it
    // failed, what a finished one holds.
    for (const json& condition : status.value("conditions", json::array())) {
      if (condition.is_object() && Str(condition, "type") == "Ready" &&
          !Str(condition, "message").empty()) {
        c["message"] = Str(condition, "message");
      }
    }
    out.push_back(std::move(c));
  }
  return out;
}

std::string Num(const json& v) {
  if (v.is_number_integer() || v.is_number_unsigned()) return v.dump();
  if (!v.is_number()) return "-";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%g", v.get<double>());
  return buf;
}

std::string Ago(const json& part, const char* key) {
  return part.contains(key)
             ? ShortDuration(part[key].get<int64_t>() * 1000) + " ago"
             : "-";
}

std::string In(const json& part, const char* key) {
  return part.contains(key)
             ? "in " + ShortDuration(part[key].get<int64_t>() * 1000)
             : "-";
}

std::string Joined(const json& list) {
  std::string out;
  for (const json& item : list) {
    out += (out.empty() ? "" : ",") + item.get<std::string>();
  }
  return out.empty() ? "-" : out;
}

std::string RouteTableLine(const json& t) {
  std::string line = "route table " + t.value("name", "") + ": ";
  if (t.contains("version")) {
    line += "version " + Num(t["version"]) + ", generated " +
            ShortDuration(t["ageSeconds"].get<int64_t>() * 1000) + " ago";
  } else {
    line += t.value("error", "unreadable");
  }
  if (t.contains("rollbackTo")) {
    line += "; held at the content of version " +
            t["rollbackTo"].get<std::string>() +
            " (axctl rollback --resume publishes again)";
  }
  return line + "\n";
}

}  // namespace

std::string StatusText(const json& model) {
  std::string out = RouteTableLine(model["routeTable"]);
  std::vector<std::vector<std::string>> rows = {
      {"REPLICA", "SERVES", "LOADED", "REPORTED"}};
  for (const json& r : model["replicas"]) {
    rows.push_back({r.value("vantage", ""),
                    r.contains("servedVersion")
                        ? Num(r["servedVersion"]) +
                              (r.value("behind", false) ? " (behind)" : "")
                        : "?",
                    Ago(r, "loadedSecondsAgo"), Ago(r, "reportedSecondsAgo")});
  }
  out += "\n" + TextTable(rows);
  rows = {{"NODE", "HEALTH", "DOWN FOR GROUPS", "ADMIN", "LOAD"}};
  for (const json& n : model["nodes"]) {
    std::string admin = n.value("adminState", "");
    if (n.contains("adminStateSecondsLeft")) {
      admin += " (" + In(n, "adminStateSecondsLeft") + ")";
    }
    rows.push_back(
        {n.value("name", ""), n.value("health", ""), Joined(n["downForGroups"]),
         admin, n.contains("loadPercent") ? Num(n["loadPercent"]) + "%" : "-"});
  }
  out += "\n" + TextTable(rows);
  if (!model["rules"].empty()) {
    rows = {{"RULE", "ACTION", "NODE", "DOMAIN", "MATCH", "ACTIVE", "EXPIRES"}};
    for (const json& r : model["rules"]) {
      rows.push_back({r.value("name", ""), r.value("action", ""),
                      r.value("node", ""), r.value("domain", ""),
                      r.value("match", ""),
                      r.value("expired", false)
                          ? "expired"
                          : (r.value("active", false) ? "yes" : "no"),
                      In(r, "secondsLeft")});
    }
    out += "\n" + TextTable(rows);
  }
  if (!model["canaries"].empty()) {
    rows = {
        {"CANARY", "DOMAIN", "NODE", "PHASE", "STEP", "PERCENT", "NEXT STEP"}};
    for (const json& c : model["canaries"]) {
      rows.push_back(
          {c.value("name", ""), c.value("domain", ""), c.value("node", ""),
           c.value("phase", ""), Num(c["step"]) + "/" + Num(c["steps"]),
           Num(c["percent"]),
           c.value("phase", "") == "Paused" && c.contains("nextStepSeconds")
               ? "held, " +
                     ShortDuration(c["nextStepSeconds"].get<int64_t>() * 1000) +
                     " left"
               : In(c, "nextStepSeconds")});
    }
    out += "\n" + TextTable(rows);
    for (const json& c : model["canaries"]) {
      if (c.contains("message")) {
        out += c.value("name", "") + ": " + c.value("message", "") + "\n";
      }
    }
  }
  return out;
}

std::string ShortDuration(int64_t ms) {
  const int64_t s = std::max<int64_t>(0, ms / 1000);
  if (s < 120) return std::to_string(s) + "s";
  if (s < 2 * 3600) return std::to_string(s / 60) + "m";
  if (s < 2 * 86400) return std::to_string(s / 3600) + "h";
  return std::to_string(s / 86400) + "d";
}

json StatusModel(const StatusInputs& in) {
  json model = {{"routeTable", RouteTablePart(in)}};
  const uint64_t published = in.served ? in.served->version : 0;
  model["replicas"] = ReplicasPart(in, published);
  model["nodes"] = NodesPart(in);
  model["rules"] = RulesPart(in);
  model["canaries"] = CanariesPart(in);
  return model;
}

}  // namespace ax
