// The own-writes overlay: a write newer than the informer's copy wins until
// the informer catches up, a created object shows before the informer has
// it, one deleted after our write stays deleted, and writes are forgotten
// after kKeep.
#include "written_objects.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace ax::controller {
namespace {

using nlohmann::json;
using ::testing::ElementsAre;

json ConfigMap(const std::string& name, const std::string& rv,
               const std::string& version) {
  return {
      {"kind", "ConfigMap"},
      {"metadata",
       {{"name", name}, {"namespace", "ax-system"}, {"resourceVersion", rv}}},
      {"data", {{"v", version}}}};
}

// What an informer holds, at the resourceVersion it has seen up to.
kube::CacheView Cached(std::vector<json> objects, std::string seen) {
  kube::CacheView out{.resource_version = std::move(seen)};
  for (json& o : objects) {
    out.objects.push_back(std::make_shared<const json>(std::move(o)));
  }
  return out;
}

std::vector<std::string> Versions(const std::vector<json>& objects) {
  std::vector<std::string> out;
  for (const json& o : objects) {
    out.push_back(o["metadata"]["name"].get<std::string>() + "@" +
                  o["data"]["v"].get<std::string>());
  }
  return out;
}

TEST(WrittenObjects, NewerWriteWinsUntilTheCacheCatchesUp) {
  WrittenObjects w;
  const auto t0 = WrittenObjects::Clock::now();
  w.Record(ConfigMap("rt", "120", "8"), t0);
  w.Record(ConfigMap("rt-v8", "121", "8"), t0);
  // The informer still has version 7 and no rt-v8.
  EXPECT_THAT(
      Versions(w.Merge("ConfigMap",
                       Cached({ConfigMap("rt", "100", "7")}, "110"), t0)),
      ElementsAre("rt@8", "rt-v8@8"));
  // It caught up, and someone wrote after us: theirs.
  EXPECT_THAT(Versions(w.Merge("ConfigMap",
                               Cached({ConfigMap("rt", "130", "9"),
                                       ConfigMap("rt-v8", "121", "8")},
                                      "130"),
                               t0)),
              ElementsAre("rt@9", "rt-v8@8"));
  // Other kinds are untouched.
  EXPECT_THAT(Versions(w.Merge("Node", {}, t0)), ElementsAre());
  // After kKeep the informer is trusted alone.
  EXPECT_THAT(Versions(w.Merge(
                  "ConfigMap", Cached({ConfigMap("rt", "100", "7")}, "110"),
                  t0 + WrittenObjects::kKeep + std::chrono::seconds(1))),
              ElementsAre("rt@7"));
}

// We wrote a status at 120 and someone deleted the object at 125: while the
// informer is short of our write the write shows; once it has got past it
// (the DELETE event at 125), the object is gone, within kKeep too. An
// informer that has not listed is short of it; one whose version is no
// number is trusted alone.
TEST(WrittenObjects, DeletedAfterOurWriteStaysDeleted) {
  WrittenObjects w;
  const auto t0 = WrittenObjects::Clock::now();
  w.Record(ConfigMap("canary", "120", "failed"), t0);
  EXPECT_THAT(Versions(w.Merge("ConfigMap", Cached({}, "119"), t0)),
              ElementsAre("canary@failed"));
  EXPECT_THAT(Versions(w.Merge("ConfigMap", Cached({}, "120"), t0)),
              ElementsAre());
  EXPECT_THAT(Versions(w.Merge("ConfigMap", Cached({}, "125"), t0)),
              ElementsAre());
  EXPECT_THAT(Versions(w.Merge("ConfigMap", Cached({}, ""), t0)),
              ElementsAre("canary@failed"));
  EXPECT_THAT(Versions(w.Merge("ConfigMap", Cached({}, "x125"), t0)),
              ElementsAre());
}

TEST(WrittenObjects, ResourceVersionsCompareAsNumbersOnly) {
  EXPECT_TRUE(
      NewerResourceVersion(ConfigMap("a", "10", ""), ConfigMap("a", "9", "")));
  EXPECT_FALSE(
      NewerResourceVersion(ConfigMap("a", "9", ""), ConfigMap("a", "10", "")));
  EXPECT_FALSE(
      NewerResourceVersion(ConfigMap("a", "x1", ""), ConfigMap("a", "9", "")));
  EXPECT_FALSE(
      NewerResourceVersion(ConfigMap("a", "", ""), ConfigMap("a", "9", "")));
}

}  // namespace
}  // namespace ax::controller
