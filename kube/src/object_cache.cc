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

void ObjectCache::Replace(std::vector<nlohmann::json> items,
                          std::string resource_version) {
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
  resource_version_ = std::move(resource_version);
}

void ObjectCache::Apply(const WatchEvent& event) {
  if (event.type == WatchEventType::kError) return;
  std::string resource_version = MetadataField(event.object, "resourceVersion");
  std::string key = KeyOf(event.object);
  ObjectPtr object;
  if (!key.empty() && (event.type == WatchEventType::kAdded ||
                       event.type == WatchEventType::kModified)) {
    nlohmann::json copy = event.object;
    DropManagedFields(copy);
    object = std::make_shared<const nlohmann::json>(std::move(copy));
  }
  std::unique_lock lock(mu_);
  if (!resource_version.empty()) {
    resource_version_ = std::move(resource_version);
  }
  if (key.empty() || event.type == WatchEventType::kBookmark) return;
  if (object) {
    objects_[std::move(key)] = std::move(object);
  } else {
    objects_.erase(key);
  }
}

std::vector<ObjectPtr> ObjectCache::List() const { return View().objects; }

CacheView ObjectCache::View() const {
  std::shared_lock lock(mu_);
  CacheView view;
  view.objects.reserve(objects_.size());
  for (const auto& [key, object] : objects_) view.objects.push_back(object);
  view.resource_version = resource_version_;
  return view;
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
