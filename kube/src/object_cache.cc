// The informer's object store (object_cache.h).
#include "ax/kube/object_cache.h"

#include <mutex>

#include "json_util.h"

namespace ax::kube {
namespace {

std::string KeyOf(const nlohmann::json& object) {
  const std::string name = MetadataField(object, "name");
  return name.empty()
             ? std::string()
             : ObjectCache::Key(MetadataField(object, "namespace"), name);
}

}  // namespace

void DropManagedFields(nlohmann::json& object) {
  if (auto meta = object.find("metadata");
      meta != object.end() && meta->is_object()) {
    meta->erase("managedFields");
  }
}

std::string ObjectCache::Key(std::string_view ns, std::string_view name) {
  std::string key;
  if (!ns.empty()) {
    key.append(ns);
    key += '/';
  }
  key.append(name);
  return key;
}

void ObjectCache::Replace(std::vector<nlohmann::json> items) {
  std::map<std::string, ObjectPtr, std::less<>> fresh;
  for (nlohmann::json& item : items) {
    std::string key = KeyOf(item);
    if (key.empty()) continue;
    DropManagedFields(item);
    fresh[std::move(key)] =
        std::make_shared<const nlohmann::json>(std::move(item));
  }
  std::unique_lock lock(mu_);
  objects_.swap(fresh);
}

void ObjectCache::Apply(const WatchEvent& event) {
  std::string key = KeyOf(event.object);
  if (key.empty()) return;
  switch (event.type) {
    case WatchEventType::kAdded:
    case WatchEventType::kModified: {
      nlohmann::json copy = event.object;
      DropManagedFields(copy);
      auto object = std::make_shared<const nlohmann::json>(std::move(copy));
      std::unique_lock lock(mu_);
      objects_[std::move(key)] = std::move(object);
      break;
    }
    case WatchEventType::kDeleted: {
      std::unique_lock lock(mu_);
      objects_.erase(key);
      break;
    }
    case WatchEventType::kBookmark:
    case WatchEventType::kError:
      break;
  }
}

std::vector<ObjectPtr> ObjectCache::List() const {
  std::shared_lock lock(mu_);
  std::vector<ObjectPtr> out;
  out.reserve(objects_.size());
  for (const auto& [key, object] : objects_) out.push_back(object);
  return out;
}

ObjectPtr ObjectCache::Get(std::string_view ns, std::string_view name) const {
  const std::string key = Key(ns, name);
  std::shared_lock lock(mu_);
  const auto it = objects_.find(key);
  return it == objects_.end() ? nullptr : it->second;
}

size_t ObjectCache::size() const {
  std::shared_lock lock(mu_);
  return objects_.size();
}

}  // namespace ax::kube
