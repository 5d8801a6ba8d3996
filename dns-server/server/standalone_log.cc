// The standalone log lines (standalone_log.h). A status line names the
// object, its phase when it has one, and its conditions as they are now.
#include "server/standalone_log.h"

#include "ax/runtime/log.h"

namespace ax::dns {
namespace {

using nlohmann::json;

// A condition as it shows: without lastTransitionTime and
// observedGeneration, which move without anything to notice.
json Shown(const json& condition) {
  json shown = json::object();
  for (const char* key : {"type", "status", "reason", "message"}) {
    if (condition.contains(key)) shown[key] = condition[key];
  }
  return shown;
}

json Conditions(const json& status) {
  json out = json::array();
  const json conditions = status.is_object()
                              ? status.value("conditions", json::array())
                              : json::array();
  if (!conditions.is_array()) return out;
  for (const json& c : conditions) {
    if (c.is_object()) out.push_back(Shown(c));
  }
  return out;
}

json PhaseOf(const json& status) {
  return status.is_object() ? status.value("phase", json()) : json();
}

}  // namespace

std::vector<ManifestError> ManifestErrors(
    const std::vector<ManifestError>& file_errors,
    const std::map<std::string, std::vector<ManifestError>>& invalid,
    const ObjectSources& sources) {
  std::vector<ManifestError> out = file_errors;
  for (const auto& [object, errors] : invalid) {
    const auto source = sources.find(object);
    for (ManifestError e : errors) {
      if (e.source.empty() && source != sources.end()) {
        e.source = source->second.source;
      }
      out.push_back(std::move(e));
    }
  }
  return out;
}

void LogManifestErrors(const std::string& dir,
                       const std::vector<ManifestError>& errors) {
  for (const ManifestError& e : errors) {
    runtime::Log(runtime::LogLevel::kError, "manifest error",
                 {{"dir", dir},
                  {"source", e.source},
                  {"object", e.object},
                  {"field", e.field},
                  {"error", e.message}});
  }
}

std::string ManifestErrorSummary(const std::string& dir,
                                 const std::vector<ManifestError>& errors) {
  if (errors.empty()) return "";
  return std::to_string(errors.size()) + " manifest error(s) in " + dir +
         ", first: " + errors.front().ToString();
}

bool WorthALine(const json& before, const json& after) {
  const json conditions = Conditions(after);
  if (Conditions(before).empty() && PhaseOf(before).is_null()) {
    for (const json& c : conditions) {
      if (c.value("status", json()) != "True") return true;
    }
    return false;
  }
  return Conditions(before) != conditions || PhaseOf(before) != PhaseOf(after);
}

void LogStatusChanges(const std::vector<StatusChange>& changes) {
  for (const StatusChange& c : changes) {
    if (!WorthALine(c.before, c.after)) continue;
    const json phase = PhaseOf(c.after);
    if (phase.is_null()) {
      runtime::Log(runtime::LogLevel::kInfo, "status changed",
                   {{"object", c.object}, {"conditions", Conditions(c.after)}});
    } else {
      runtime::Log(runtime::LogLevel::kInfo, "status changed",
                   {{"object", c.object},
                    {"phase", phase},
                    {"conditions", Conditions(c.after)}});
    }
  }
}

void LogEvents(const std::vector<controller::Event>& events) {
  for (const controller::Event& e : events) {
    runtime::Log(e.type == controller::EventType::kWarning
                     ? runtime::LogLevel::kWarn
                     : runtime::LogLevel::kInfo,
                 "event",
                 {{"object", e.object.KindName()},
                  {"type", controller::EventTypeName(e.type)},
                  {"reason", e.reason},
                  {"message", e.message}});
  }
}

}  // namespace ax::dns
