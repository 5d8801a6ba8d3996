// REST paths for core and group resources, namespaced and cluster-scoped,
// subresources, and query encoding.
#include "ax/kube/resource.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace ax::kube {
namespace {

const Resource kProbeReports{"gslb.ax.io", "v1alpha1", "probereports"};

TEST(ResourceTest, CoreGroupLivesUnderApi) {
  EXPECT_EQ(ResourcePath(ConfigMaps()), "/api/v1/configmaps");
  EXPECT_EQ(ResourcePath(ConfigMaps().In("ax")),
            "/api/v1/namespaces/ax/configmaps");
  EXPECT_EQ(ResourcePath(ConfigMaps().In("ax").Named("snap")),
            "/api/v1/namespaces/ax/configmaps/snap");
  EXPECT_EQ(ResourcePath(ServiceAccounts().In("ax").Named("op")),
            "/api/v1/namespaces/ax/serviceaccounts/op");
  EXPECT_EQ(ResourcePath({"", "v1", "namespaces", "", "ax"}),
            "/api/v1/namespaces/ax");
}

TEST(ResourceTest, GroupsLiveUnderApis) {
  EXPECT_EQ(ResourcePath(kProbeReports.In("ax").Named("v1")),
            "/apis/gslb.ax.io/v1alpha1/namespaces/ax/probereports/v1");
  EXPECT_EQ(ResourcePath(kProbeReports.In("ax").Named("v1"), "status"),
            "/apis/gslb.ax.io/v1alpha1/namespaces/ax/probereports/v1/status");
  EXPECT_EQ(ResourcePath(kProbeReports),
            "/apis/gslb.ax.io/v1alpha1/probereports");
  EXPECT_EQ(ResourcePath(Leases().In("kube-system").Named("ax")),
            "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/ax");
}

TEST(ResourceTest, ApiVersionAndAddressingAnObject) {
  EXPECT_EQ(ConfigMaps().ApiVersion(), "v1");
  EXPECT_EQ(kProbeReports.ApiVersion(), "gslb.ax.io/v1alpha1");
  const auto object = nlohmann::json::parse(
      R"({"metadata": {"namespace": "ax", "name": "east"}})");
  const Resource r = kProbeReports.For(object);
  EXPECT_EQ(r.ns, "ax");
  EXPECT_EQ(r.name, "east");
  EXPECT_EQ(r.plural, "probereports");
}

TEST(ResourceTest, QueryValuesArePercentEncoded) {
  EXPECT_EQ(WithQuery("/api/v1/pods", {{"labelSelector", "app=ax,tier!=edge"},
                                       {"limit", "50"},
                                       {"continue", ""},
                                       {"fieldSelector", "metadata.name=a b"}}),
            "/api/v1/pods?labelSelector=app%3Dax%2Ctier%21%3Dedge&limit=50&"
            "fieldSelector=metadata.name%3Da%20b");
  EXPECT_EQ(WithQuery("/x", {{"a", ""}}), "/x");
  EXPECT_EQ(PercentEncode("eyJ2IjoibWV0YS5rOHMuaW8vdjEi+/="),
            "eyJ2IjoibWV0YS5rOHMuaW8vdjEi%2B%2F%3D");
  EXPECT_EQ(PercentEncode("AZaz09-._~"), "AZaz09-._~");
}

}  // namespace
}  // namespace ax::kube
