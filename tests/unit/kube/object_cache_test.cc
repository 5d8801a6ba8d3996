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
  cache.Replace({Object("a", "x", 1), Object("b", "x", 2), Object("", "c", 3)},
                "");
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
  cache.Replace({Object("a", "y", 12)}, "");
  EXPECT_EQ(Names(cache), std::vector<std::string>{"y"});
  EXPECT_EQ(cache.Get("a", "x"), nullptr);
}

TEST(ObjectCacheTest, ReadersKeepTheirSnapshot) {
  ObjectCache cache;
  cache.Replace({Object("a", "x", 1)}, "");
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
  cache.Replace({listed}, "7");
  EXPECT_FALSE((*cache.Get("a", "x"))["metadata"].contains("managedFields"));
  EXPECT_EQ((*cache.Get("a", "x"))["metadata"]["resourceVersion"], "7");
  listed["metadata"]["managedFields"].push_back({{"manager", "ax-probe"}});
  cache.Apply({WatchEventType::kModified, listed});
  EXPECT_FALSE((*cache.Get("a", "x"))["metadata"].contains("managedFields"));
  EXPECT_EQ((*cache.Get("a", "x"))["metadata"]["name"], "x");
}

TEST(ObjectCacheTest, IgnoresObjectsWithoutAName) {
  ObjectCache cache;
  cache.Replace({json{{"metadata", {{"namespace", "a"}}}}, json::array()}, "");
  cache.Apply({WatchEventType::kAdded, json{{"kind", "x"}}});
  EXPECT_EQ(cache.size(), 0u);
}

json At(json object, const std::string& resource_version) {
  object["metadata"]["resourceVersion"] = resource_version;
  return object;
}

// The view says how far the cache has got: a reader holding a write at a
// newer resourceVersion knows the cache does not show it yet, and one at an
// older version knows that an absent object was deleted since.
TEST(ObjectCacheTest, TheViewCarriesTheResourceVersionSeen) {
  ObjectCache cache;
  EXPECT_EQ(cache.View().resource_version, "");
  cache.Replace({At(Object("a", "x", 1), "5")}, "9");
  EXPECT_EQ(cache.View().resource_version, "9");
  cache.Apply({WatchEventType::kModified, At(Object("a", "x", 2), "12")});
  EXPECT_EQ(cache.View().resource_version, "12");
  // A deletion is as far as the collection got, though the object is gone.
  cache.Apply({WatchEventType::kDeleted, At(Object("a", "x", 2), "15")});
  CacheView view = cache.View();
  EXPECT_TRUE(view.objects.empty());
  EXPECT_EQ(view.resource_version, "15");
  // A bookmark moves the version and nothing else; an ERROR neither.
  cache.Apply({WatchEventType::kBookmark,
               At(json{{"metadata", json::object()}}, "20")});
  cache.Apply({WatchEventType::kError, At(json::object(), "99")});
  view = cache.View();
  EXPECT_TRUE(view.objects.empty());
  EXPECT_EQ(view.resource_version, "20");
  cache.Apply({WatchEventType::kAdded, At(Object("a", "y", 3), "21")});
  view = cache.View();
  ASSERT_EQ(view.objects.size(), 1u);
  EXPECT_EQ((*view.objects[0])["value"], 3);
  EXPECT_EQ(view.resource_version, "21");
}

}  // namespace
}  // namespace ax::kube
