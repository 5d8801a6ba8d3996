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

std::string_view VersionOf(const json& object) {
  const auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object()) return {};
  const auto rv = meta->find("resourceVersion");
  return rv != meta->end() && rv->is_string()
             ? std::string_view(rv->get_ref<const std::string&>())
             : std::string_view();
}

std::optional<uint64_t> Number(std::string_view rv) {
  uint64_t v = 0;
  const auto [end, ec] = std::from_chars(rv.data(), rv.data() + rv.size(), v);
  if (rv.empty() || ec != std::errc() || end != rv.data() + rv.size()) {
    return std::nullopt;
  }
  return v;
}

}  // namespace

bool NewerResourceVersion(std::string_view a, std::string_view b) {
  const std::optional<uint64_t> va = Number(a), vb = Number(b);
  return va && vb && *va > *vb;
}

bool NewerResourceVersion(const json& a, const json& b) {
  return NewerResourceVersion(VersionOf(a), VersionOf(b));
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

std::vector<json> WrittenObjects::Merge(std::string_view kind,
                                        const kube::CacheView& cached,
                                        Clock::time_point now) {
  std::vector<json> out;
  out.reserve(cached.objects.size());
  const auto of_kind = written_.find(kind);
  if (of_kind == written_.end()) {
    for (const kube::ObjectPtr& object : cached.objects) out.push_back(*object);
    return out;
  }
  std::map<std::string, Written>& mine = of_kind->second;
  std::erase_if(
      mine, [&](const auto& entry) { return now - entry.second.at > kKeep; });
  std::map<std::string, bool> seen;
  for (const kube::ObjectPtr& object : cached.objects) {
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
    // An informer that has not listed yet is short of every write.
    if (!seen.count(key) && (cached.resource_version.empty() ||
                             NewerResourceVersion(VersionOf(written.object),
                                                  cached.resource_version))) {
      out.push_back(written.object);
    }
  }
  return out;
}

}  // namespace ax::controller
