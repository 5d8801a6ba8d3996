// Owner references: the reference to an object as read, and adding them to
// an object without dropping or doubling the ones it holds.
#include "ax/kube/owner_references.h"

#include <gtest/gtest.h>

namespace ax::kube {
namespace {

using nlohmann::json;

const json kAccount = {{"apiVersion", "v1"},
                       {"kind", "ServiceAccount"},
                       {"metadata",
                        {{"name", "ax-operator"},
                         {"namespace", "ax-system"},
                         {"uid", "uid-sa"},
                         {"resourceVersion", "3"}}}};

TEST(OwnerReferencesTest, ReferenceToAnObjectAsRead) {
  // No controller, no blockOwnerDeletion: a plain owner.
  EXPECT_EQ(OwnerReferenceTo(kAccount), json({{"apiVersion", "v1"},
                                              {"kind", "ServiceAccount"},
                                              {"name", "ax-operator"},
                                              {"uid", "uid-sa"}}));
}

TEST(OwnerReferencesTest, AddsMissingOnesAndKeepsTheOthers) {
  const json owners = json::array({OwnerReferenceTo(kAccount)});
  json fresh = {{"metadata", {{"name", "cm"}}}};
  AddOwnerReferences(owners, &fresh);
  EXPECT_EQ(fresh["metadata"]["ownerReferences"], owners);
  AddOwnerReferences(owners, &fresh);  // present already: not twice
  EXPECT_EQ(fresh["metadata"]["ownerReferences"], owners);

  const json other = {{"apiVersion", "apps/v1"},
                      {"kind", "Deployment"},
                      {"name", "x"},
                      {"uid", "uid-x"},
                      {"controller", true}};
  json held = {{"metadata", {{"ownerReferences", json::array({other})}}}};
  AddOwnerReferences(owners, &held);
  EXPECT_EQ(held["metadata"]["ownerReferences"],
            json::array({other, owners[0]}));
}

TEST(OwnerReferencesTest, NoOwnersAddNothing) {
  json object = {{"metadata", {{"name", "cm"}}}};
  const json before = object;
  AddOwnerReferences(json::array(), &object);
  AddOwnerReferences(json(), &object);
  EXPECT_EQ(object, before);
}

}  // namespace
}  // namespace ax::kube
