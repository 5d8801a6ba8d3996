// WrittenObjects (written_objects.h): expiry, then newest-wins by
// resourceVersion per namespace/name.
#include "written_objects.h"

#include <charconv>
#include <optional>

namespace ax::controller {
namespace {

using nlohmann::json;

std::string Key(const json& object) {
  const json meta = object.value("metadata", json::object());
  return meta.value("namespace", std::string()) + "/" +
         meta.value("name", std::string());
}

std::optional<uint64_t> VersionOf(const json& object) {
  const json meta = object.value("metadata", json::object());
  const std::string rv = meta.value("resourceVersion", std::string());
  uint64_t v = 0;
  const auto [end, ec] = std::from_chars(rv.data(), rv.data() + rv.size(), v);
  if (rv.empty() || ec != std::errc() || end != rv.data() + rv.size()) {
    return std::nullopt;
  }
  return v;
}

}  // namespace

bool NewerResourceVersion(const json& a, const json& b) {
  const std::optional<uint64_t> va = VersionOf(a), vb = VersionOf(b);
  return va && vb && *va > *vb;
}

void WrittenObjects::Record(const json& object, Clock::time_point now) {
  if (!object.is_object()) return;
  const std::string kind = object.value("kind", std::string());
  if (kind.empty()) return;
  // Kept as the informer keeps it (object_cache.h): no managedFields.
  json kept = object;
  kube::DropManagedFields(kept);
  written_[kind][Key(object)] = {std::move(kept), now};
}

std::vector<json> WrittenObjects::Merge(
    std::string_view kind, const std::vector<kube::ObjectPtr>& cached,
    Clock::time_point now) {
  std::vector<json> out;
  out.reserve(cached.size());
  const auto of_kind = written_.find(kind);
  if (of_kind == written_.end()) {
    for (const kube::ObjectPtr& object : cached) out.push_back(*object);
    return out;
  }
  std::map<std::string, Written>& mine = of_kind->second;
  std::erase_if(
      mine, [&](const auto& entry) { return now - entry.second.at > kKeep; });
  std::map<std::string, bool> seen;
  for (const kube::ObjectPtr& object : cached) {
    const auto it = mine.find(Key(*object));
    if (it == mine.end()) {
      out.push_back(*object);
      continue;
    }
    seen[it->first] = true;
    out.push_back(NewerResourceVersion(it->second.object, *object)
                      ? it->second.object
                      : *object);
  }
  for (const auto& [key, written] : mine) {
    if (!seen.count(key)) out.push_back(written.object);
  }
  return out;
}

}  // namespace ax::controller
