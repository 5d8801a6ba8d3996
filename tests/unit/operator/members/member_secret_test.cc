// A member Secret: the kubeconfig (inline only) and the optional namespace key,
// and errors that name the Secret and the key.
#include "member_secret.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ax/runtime/base64.h"

namespace ax::controller {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

constexpr char kKubeconfig[] = R"({"current-context": "m",
  "contexts": [{"name": "m", "context": {"cluster": "k", "user": "u"}}],
  "clusters": [{"name": "k", "cluster": {"server": "https://10.0.0.1:6443"}}],
  "users": [{"name": "u", "user": {"token": "t0ken"}}]})";

json Secret(json data) {
  return {{"apiVersion", "v1"},
          {"kind", "Secret"},
          {"metadata",
           {{"name", "gz-idc"},
            {"namespace", "ax-system"},
            {"uid", "uid-1"},
            {"resourceVersion", "17"}}},
          {"data", std::move(data)}};
}

std::string B64(const std::string& text) { return runtime::Base64Encode(text); }

TEST(MemberSecretTest, KubeconfigAndNamespace) {
  const MemberSpecResult r = ParseMemberSecret(
      Secret({{"kubeconfig", B64(kKubeconfig)}, {"namespace", B64("edge")}}),
      "ax-system");
  ASSERT_TRUE(r.spec) << r.error;
  EXPECT_EQ(r.spec->name, "gz-idc");
  EXPECT_EQ(r.spec->namespace_name, "edge");
  EXPECT_EQ(r.spec->config.server, "https://10.0.0.1:6443");
  EXPECT_EQ(r.spec->config.token, "t0ken");
  EXPECT_EQ(r.spec->secret_version, "17");
  EXPECT_EQ(r.spec->secret.kind, "Secret");
  EXPECT_EQ(r.spec->secret.uid, "uid-1");
}

TEST(MemberSecretTest, TheOperatorsNamespaceByDefault) {
  const MemberSpecResult r = ParseMemberSecret(
      Secret({{"kubeconfig", B64(kKubeconfig)}}), "ax-system");
  ASSERT_TRUE(r.spec) << r.error;
  EXPECT_EQ(r.spec->namespace_name, "ax-system");
}

TEST(MemberSecretTest, ErrorsNameTheSecretAndKey) {
  EXPECT_EQ(ParseMemberSecret(Secret(json::object()), "ns").error,
            "Secret ax-system/gz-idc: has no data.kubeconfig (the member's "
            "kubeconfig)");
  EXPECT_EQ(ParseMemberSecret(Secret({{"kubeconfig", "***"}}), "ns").error,
            "Secret ax-system/gz-idc: data.kubeconfig is not valid base64");
  const std::string file_ca =
      std::string(kKubeconfig)
          .replace(std::string(kKubeconfig).find("\"server\""), 8,
                   "\"certificate-authority\": \"/ca.crt\", \"server\"");
  EXPECT_THAT(
      ParseMemberSecret(Secret({{"kubeconfig", B64(file_ca)}}), "ns").error,
      HasSubstr("Secret ax-system/gz-idc data.kubeconfig: cluster \"k\": "
                "certificate-authority names a file"));
}

}  // namespace
}  // namespace ax::controller
