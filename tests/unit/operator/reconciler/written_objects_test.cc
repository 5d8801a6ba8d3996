// The own-writes overlay: a write newer than the informer's copy wins until
// the informer catches up, a created object shows before the informer has
// it, and writes are forgotten after kKeep.
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

std::vector<kube::ObjectPtr> Cached(std::vector<json> objects) {
  std::vector<kube::ObjectPtr> out;
  for (json& o : objects) {
    out.push_back(std::make_shared<const json>(std::move(o)));
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
      Versions(w.Merge("ConfigMap", Cached({ConfigMap("rt", "100", "7")}), t0)),
      ElementsAre("rt@8", "rt-v8@8"));
  // It caught up, and someone wrote after us: theirs.
  EXPECT_THAT(Versions(w.Merge("ConfigMap",
                               Cached({ConfigMap("rt", "130", "9"),
                                       ConfigMap("rt-v8", "121", "8")}),
                               t0)),
              ElementsAre("rt@9", "rt-v8@8"));
  // Other kinds are untouched.
  EXPECT_THAT(Versions(w.Merge("Node", {}, t0)), ElementsAre());
  // After kKeep the informer is trusted alone.
  EXPECT_THAT(
      Versions(w.Merge("ConfigMap", Cached({ConfigMap("rt", "100", "7")}),
                       t0 + WrittenObjects::kKeep + std::chrono::seconds(1))),
      ElementsAre("rt@7"));
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
