// The informer's cache: lists replace everything, events edit one object,
// keys are namespace/name, readers share the stored objects.
#include "ax/kube/object_cache.h"

#include <gtest/gtest.h>

namespace ax::kube {
namespace {

using nlohmann::json;

json Object(const std::string& ns, const std::string& name, int value) {
  json metadata = {{"name", name}};
  if (!ns.empty()) metadata["namespace"] = ns;
  return {{"metadata", metadata}, {"value", value}};
}

std::vector<std::string> Names(const ObjectCache& cache) {
  std::vector<std::string> names;
  for (const ObjectPtr& o : cache.List()) {
    names.push_back((*o)["metadata"]["name"].get<std::string>());
  }
  return names;
}

TEST(ObjectCacheTest, ReplaceThenEvents) {
  ObjectCache cache;
  cache.Replace({Object("a", "x", 1), Object("b", "x", 2), Object("", "c", 3)});
  EXPECT_EQ(cache.size(), 3u);
  EXPECT_EQ((*cache.Get("b", "x"))["value"], 2);
  EXPECT_EQ((*cache.Get("", "c"))["value"], 3);  // cluster-scoped
  EXPECT_EQ(cache.Get("a", "c"), nullptr);

  cache.Apply({WatchEventType::kModified, Object("a", "x", 10)});
  cache.Apply({WatchEventType::kAdded, Object("a", "y", 11)});
  cache.Apply({WatchEventType::kDeleted, Object("b", "x", 2)});
  cache.Apply({WatchEventType::kBookmark, Object("a", "x", 99)});
  EXPECT_EQ((*cache.Get("a", "x"))["value"], 10);
  EXPECT_EQ(Names(cache), (std::vector<std::string>{"x", "y", "c"}));

  // A relist drops whatever is not in it.
  cache.Replace({Object("a", "y", 12)});
  EXPECT_EQ(Names(cache), std::vector<std::string>{"y"});
  EXPECT_EQ(cache.Get("a", "x"), nullptr);
}

TEST(ObjectCacheTest, ReadersKeepTheirSnapshot) {
  ObjectCache cache;
  cache.Replace({Object("a", "x", 1)});
  const ObjectPtr before = cache.Get("a", "x");
  cache.Apply({WatchEventType::kModified, Object("a", "x", 2)});
  EXPECT_EQ((*before)["value"], 1);
  EXPECT_EQ((*cache.Get("a", "x"))["value"], 2);
}

// Server-side apply's bookkeeping is not kept; the rest of metadata is.
TEST(ObjectCacheTest, DropsManagedFields) {
  json listed = Object("a", "x", 1);
  listed["metadata"]["managedFields"] = json::array({{{"manager", "kubectl"}}});
  listed["metadata"]["resourceVersion"] = "7";
  ObjectCache cache;
  cache.Replace({listed});
  EXPECT_FALSE((*cache.Get("a", "x"))["metadata"].contains("managedFields"));
  EXPECT_EQ((*cache.Get("a", "x"))["metadata"]["resourceVersion"], "7");
  listed["metadata"]["managedFields"].push_back({{"manager", "ax-probe"}});
  cache.Apply({WatchEventType::kModified, listed});
  EXPECT_FALSE((*cache.Get("a", "x"))["metadata"].contains("managedFields"));
  EXPECT_EQ((*cache.Get("a", "x"))["metadata"]["name"], "x");
}

TEST(ObjectCacheTest, IgnoresObjectsWithoutAName) {
  ObjectCache cache;
  cache.Replace({json{{"metadata", {{"namespace", "a"}}}}, json::array()});
  cache.Apply({WatchEventType::kAdded, json{{"kind", "x"}}});
  EXPECT_EQ(cache.size(), 0u);
}

}  // namespace
}  // namespace ax::kube
