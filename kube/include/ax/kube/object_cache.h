// An informer's copy of the objects it watches: namespace/name -> the latest
// object JSON, replaced wholesale after a list and edited by watch events.
// metadata.managedFields is not kept: server-side apply's bookkeeping is often
// as large as the rest of the object, and no reader here needs it.
// It also keeps the resourceVersion it has seen up to (the list's, then each
// event's), so that a reader can tell whether a write it made is in the cache
// yet. Thread-safe: one writer (the reflector's thread), any number of
// readers, who get shared immutable objects rather than copies.
#pragma once

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include "ax/kube/watch.h"

namespace ax::kube {

using ObjectPtr = std::shared_ptr<const nlohmann::json>;

// Removes metadata.managedFields: what the cache (and whoever keeps objects
// the way it does) leaves out.
void DropManagedFields(nlohmann::json& object);

// The objects, ordered by key, and the resourceVersion the cache holds them
// at: the newest list or event applied ("" before the first).
struct CacheView {
  std::vector<ObjectPtr> objects;
  std::string resource_version;
};

class ObjectCache {
 public:
  // "ns/name", or "name" for a cluster-scoped object.
  static std::string Key(std::string_view ns, std::string_view name);

  // The result of a list made at `resource_version`.
  void Replace(std::vector<nlohmann::json> items, std::string resource_version);
  // ADDED/MODIFIED store the object, DELETED removes it; other types and
  // objects without a name are ignored. Every event but ERROR carries the
  // resourceVersion the collection is at (a BOOKMARK nothing else).
  void Apply(const WatchEvent& event);

  // Every object, ordered by key.
  std::vector<ObjectPtr> List() const;
  // List() and the resourceVersion, read together.
  CacheView View() const;
  // nullptr when absent.
  ObjectPtr Get(std::string_view ns, std::string_view name) const;
  size_t size() const;

 private:
  mutable std::shared_mutex mu_;
  std::map<std::string, ObjectPtr, std::less<>> objects_;
  std::string resource_version_;
};

}  // namespace ax::kube
