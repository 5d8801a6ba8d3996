// ReplaceObjects and WriteStatus (standalone_objects.h): objects are matched
// by kind and metadata.name.
#include "server/standalone_objects.h"

#include <set>
#include <utility>
#include <vector>

#include "ax/probe_report.h"

namespace ax::dns {
namespace {

using nlohmann::json;

std::string NameOf(const json& object) {
  return object.value("metadata", json::object()).value("name", std::string());
}

// The held object's status and generation carried over to its re-read copy.
void CarryOver(const json& held, json& read) {
  const int64_t generation =
      held.value("metadata", json::object()).value("generation", int64_t{1});
  const bool edited = held.value("spec", json()) != read.value("spec", json());
  read["metadata"]["generation"] = generation + (edited ? 1 : 0);
  if (held.contains("status")) {
    read["status"] = held["status"];
  } else {
    read.erase("status");
  }
}

}  // namespace

void ReplaceObjects(ManifestObjects read, ApiObjects& held,
                    ObjectSources& sources) {
  const std::set<std::string> unreadable(read.unreadable_files.begin(),
                                         read.unreadable_files.end());
  for (std::string_view kind : kManifestKinds) {
    std::vector<json>& old_list = *ObjectsOfKind(held, kind);
    std::vector<json>& new_list = *ObjectsOfKind(read.objects, kind);
    std::map<std::string, const json*> old_by_name;
    for (const json& object : old_list) {
      old_by_name.emplace(NameOf(object), &object);
    }
    std::set<std::string> read_names;
    for (json& object : new_list) {
      const std::string name = NameOf(object);
      read_names.insert(name);
      if (auto it = old_by_name.find(name); it != old_by_name.end()) {
        CarryOver(*it->second, object);
      } else if (!object["metadata"]
                      .value("generation", json())
                      .is_number_integer()) {
        object["metadata"]["generation"] = 1;  // as created
      }
    }
    for (json& object : old_list) {
      const std::string kind_name = std::string(kind) + "/" + NameOf(object);
      const auto source = sources.find(kind_name);
      if (!read_names.contains(NameOf(object)) && source != sources.end() &&
          unreadable.contains(source->second.file)) {
        read.sources.emplace(kind_name, source->second);
        new_list.push_back(std::move(object));
      }
    }
  }
  held = std::move(read.objects);
  sources = std::move(read.sources);
}

std::optional<json> WriteStatus(const controller::StatusUpdate& update,
                                controller::ObservedState& observed) {
  std::vector<json>* list = update.object.kind == kProbeReportKind
                                ? &observed.probe_reports
                                : ObjectsOfKind(observed, update.object.kind);
  if (!list) return std::nullopt;
  for (json& object : *list) {
    if (NameOf(object) != update.object.name) continue;
    json before = object.value("status", json());
    object["status"] = update.status;
    return before;
  }
  return std::nullopt;
}

}  // namespace ax::dns
