// Kubeconfig and in-cluster config loading: contexts, inline and file
// credentials (paths relative to the kubeconfig), and errors that name the
// file, the entry and the field.
#include "ax/kube/config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "temp_dir.h"

namespace ax::kube {
namespace {

using ::ax::testing::TempDir;
using ::ax::testing::WriteFile;
using ::testing::HasSubstr;

// base64 of "CA-PEM", "CERT-PEM", "KEY-PEM".
constexpr char kKubeconfig[] = R"(
apiVersion: v1
kind: Config
current-context: admin
contexts:
  - name: admin
    context: {cluster: test, user: admin, namespace: ax-system}
  - name: reader
    context: {cluster: files, user: reader}
  - name: broken
    context: {user: admin}
clusters:
  - name: test
    cluster:
      server: https://127.0.0.1:6443
      certificate-authority-data: Q0EtUEVN
  - name: files
    cluster:
      server: https://[::1]:8443
      certificate-authority: pki/ca.crt
      insecure-skip-tls-verify: true
users:
  - name: admin
    user:
      client-certificate-data: Q0VSVC1QRU0=
      client-key-data: S0VZLVBFTQ==
  - name: reader
    user:
      token: static-token
      tokenFile: token
)";

// Sets or unsets environment variables for one test, restoring them after.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value != nullptr) {
      ::setenv(name, value, 1);
    } else {
      ::unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (old_) {
      ::setenv(name_, old_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

class KubeconfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    WriteFile(dir_ / "kube/config", kKubeconfig);
    WriteFile(dir_ / "kube/pki/ca.crt", "FILE-CA");
    WriteFile(dir_ / "kube/token", "file-token\n");
  }
  std::string path() const { return (dir_ / "kube/config").string(); }

  TempDir dir_;
};

TEST_F(KubeconfigTest, CurrentContextWithInlineData) {
  auto config = LoadKubeconfig(path());
  ASSERT_TRUE(config.ok()) << config.error().ToString();
  EXPECT_EQ(config->server, "https://127.0.0.1:6443");
  EXPECT_EQ(config->ca_pem, "CA-PEM");
  EXPECT_EQ(config->client_cert_pem, "CERT-PEM");
  EXPECT_EQ(config->client_key_pem, "KEY-PEM");
  EXPECT_FALSE(config->insecure_skip_tls_verify);
  EXPECT_EQ(config->default_namespace, "ax-system");
  EXPECT_TRUE(config->token.empty());
  EXPECT_EQ(config->source, "kubeconfig " + path() + " (context admin)");
}

TEST_F(KubeconfigTest, NamedContextWithFilesRelativeToTheKubeconfig) {
  auto config = LoadKubeconfig(path(), "reader");
  ASSERT_TRUE(config.ok()) << config.error().ToString();
  EXPECT_EQ(config->server, "https://[::1]:8443");
  EXPECT_EQ(config->ca_pem, "FILE-CA");
  EXPECT_TRUE(config->insecure_skip_tls_verify);
  EXPECT_EQ(config->token, "static-token");
  EXPECT_EQ(config->token_file, (dir_ / "kube/token").string());
  EXPECT_TRUE(config->client_cert_pem.empty());
  EXPECT_EQ(config->default_namespace, "default");
}

TEST_F(KubeconfigTest, JsonKubeconfigsWork) {
  WriteFile(dir_ / "json", R"({"current-context": "c",
    "contexts": [{"name": "c", "context": {"cluster": "k"}}],
    "clusters": [{"name": "k", "cluster": {"server": "https://k:1"}}]})");
  auto config = LoadKubeconfig((dir_ / "json").string());
  ASSERT_TRUE(config.ok()) << config.error().ToString();
  EXPECT_EQ(config->server, "https://k:1");
}

TEST(KubeconfigTextTest, InlineCredentialsFromText) {
  auto config = ParseKubeconfigText(kKubeconfig, "Secret ax-system/member-b");
  ASSERT_TRUE(config.ok()) << config.error().ToString();
  EXPECT_EQ(config->server, "https://127.0.0.1:6443");
  EXPECT_EQ(config->client_key_pem, "KEY-PEM");
  EXPECT_EQ(config->default_namespace, "ax-system");
  EXPECT_EQ(config->source, "Secret ax-system/member-b (context admin)");
}

TEST(KubeconfigTextTest, FileReferencesAreRefusedByName) {
  const std::string files =
      "current-context: c\n"
      "contexts: [{name: c, context: {cluster: k, user: u}}]\n"
      "clusters: [{name: k, cluster: {server: 'https://k', "
      "certificate-authority: ca.crt}}]\n"
      "users: [{name: u, user: {token: t}}]\n";
  auto ca = ParseKubeconfigText(files, "Secret ns/m");
  ASSERT_FALSE(ca.ok());
  EXPECT_THAT(ca.error().message,
              HasSubstr("Secret ns/m: cluster \"k\": certificate-authority "
                        "names a file"));
  EXPECT_THAT(ca.error().message, HasSubstr("certificate-authority-data"));
  std::string token_file = files;
  token_file.replace(token_file.find(", certificate-authority: ca.crt"),
                     std::string(", certificate-authority: ca.crt").size(), "");
  token_file.replace(token_file.find("token: t"), 8, "tokenFile: /t");
  auto token = ParseKubeconfigText(token_file, "Secret ns/m");
  ASSERT_FALSE(token.ok());
  EXPECT_THAT(token.error().message,
              HasSubstr("user \"u\": tokenFile names a file"));
  auto garbage = ParseKubeconfigText("[1, 2", "Secret ns/m");
  ASSERT_FALSE(garbage.ok());
  EXPECT_THAT(garbage.error().message, HasSubstr("Secret ns/m: "));
}

struct BadCase {
  const char* name;
  std::string kubeconfig;
  const char* context;
  const char* message;
};

TEST_F(KubeconfigTest, ErrorsNameWhatIsMissing) {
  const std::string users =
      "clusters: [{name: k, cluster: {server: 'https://k'}}]\n"
      "contexts: [{name: c, context: {cluster: k, user: u}}]\n";
  const BadCase cases[] = {
      {"unknown context", kKubeconfig, "nope",
       "contexts has no entry named \"nope\" (has: admin, reader, broken)"},
      {"context without cluster", kKubeconfig, "broken",
       "context \"broken\" has no cluster"},
      {"no current context", "contexts: []\n", "",
       "no current-context set and no context given"},
      {"unknown cluster", "contexts: [{name: c, context: {cluster: k}}]\n", "c",
       "clusters has no entry named \"k\" (has: none)"},
      {"no server",
       "contexts: [{name: c, context: {cluster: k}}]\n"
       "clusters: [{name: k, cluster: {insecure-skip-tls-verify: true}}]\n",
       "c", "cluster \"k\" has no server"},
      {"cert without key",
       users + "users: [{name: u, user: {client-certificate-data: QQ==}}]\n",
       "c",
       "user \"u\" has client-certificate(-data) but no client-key(-data)"},
      {"bad base64",
       users + "users: [{name: u, user: {client-certificate-data: '!!',"
               " client-key-data: QQ==}}]\n",
       "c", "user \"u\": client-certificate-data is not valid base64"},
      {"missing file",
       users + "users: [{name: u, user: {tokenFile: nowhere}}]\n", "c",
       "user \"u\": tokenFile: cannot read "},
      {"exec plugin",
       users + "users: [{name: u, user: {exec: {command: x}}}]\n", "c",
       "user \"u\" uses exec, which ax does not support"},
      {"not a map", "- a\n- b\n", "", "not a YAML/JSON map"},
      {"malformed", "contexts: [\n", "", "kubeconfig "},
  };
  for (const BadCase& c : cases) {
    WriteFile(dir_ / "bad", c.kubeconfig);
    auto config = LoadKubeconfig((dir_ / "bad").string(), c.context);
    ASSERT_FALSE(config.ok()) << c.name;
    EXPECT_EQ(config.error().reason, kReasonInvalidConfig) << c.name;
    EXPECT_THAT(config.error().message, HasSubstr(c.message)) << c.name;
    EXPECT_THAT(config.error().message,
                HasSubstr("kubeconfig " + (dir_ / "bad").string()))
        << c.name;
  }
  auto missing = LoadKubeconfig((dir_ / "absent").string());
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.error().message, HasSubstr("cannot read"));
}

class InClusterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    WriteFile(dir_ / "token", "sa-token\n");
    WriteFile(dir_ / "ca.crt", "CLUSTER-CA");
    WriteFile(dir_ / "namespace", "ax-system\n");
  }
  TempDir dir_;
};

TEST_F(InClusterTest, ReadsTheServiceAccountMount) {
  ScopedEnv host("KUBERNETES_SERVICE_HOST", "10.0.0.1");
  ScopedEnv port("KUBERNETES_SERVICE_PORT", "443");
  auto config = InClusterConfig(dir_.path().string());
  ASSERT_TRUE(config.ok()) << config.error().ToString();
  EXPECT_EQ(config->server, "https://10.0.0.1:443");
  EXPECT_EQ(config->ca_pem, "CLUSTER-CA");
  EXPECT_EQ(config->token_file, (dir_ / "token").string());
  EXPECT_TRUE(config->token.empty());  // read by the client, again and again
  EXPECT_EQ(config->default_namespace, "ax-system");
}

TEST_F(InClusterTest, BracketsAnIpv6ServiceHost) {
  ScopedEnv host("KUBERNETES_SERVICE_HOST", "fd00::1");
  ScopedEnv port("KUBERNETES_SERVICE_PORT", "6443");
  auto config = InClusterConfig(dir_.path().string());
  ASSERT_TRUE(config.ok()) << config.error().ToString();
  EXPECT_EQ(config->server, "https://[fd00::1]:6443");
}

TEST_F(InClusterTest, NamesWhatIsMissing) {
  {
    ScopedEnv host("KUBERNETES_SERVICE_HOST", nullptr);
    ScopedEnv port("KUBERNETES_SERVICE_PORT", "443");
    auto config = InClusterConfig(dir_.path().string());
    ASSERT_FALSE(config.ok());
    EXPECT_THAT(config.error().message, HasSubstr("KUBERNETES_SERVICE_HOST"));
  }
  ScopedEnv host("KUBERNETES_SERVICE_HOST", "10.0.0.1");
  ScopedEnv port("KUBERNETES_SERVICE_PORT", "443");
  std::filesystem::remove(dir_ / "namespace");
  auto no_namespace = InClusterConfig(dir_.path().string());
  ASSERT_TRUE(no_namespace.ok());
  EXPECT_EQ(no_namespace->default_namespace, "default");
  std::filesystem::remove(dir_ / "ca.crt");
  auto no_ca = InClusterConfig(dir_.path().string());
  ASSERT_FALSE(no_ca.ok());
  EXPECT_THAT(no_ca.error().message, HasSubstr("ca.crt: cannot read"));
}

TEST_F(KubeconfigTest, LoadConfigPrefersTheExplicitPathThenKubeconfigEnv) {
  WriteFile(dir_ / "other", R"(current-context: o
contexts: [{name: o, context: {cluster: o}}]
clusters: [{name: o, cluster: {server: "https://other:1"}}])");
  ScopedEnv kubeconfig("KUBECONFIG",
                       ((dir_ / "absent").string() + ":" + path()).c_str());
  ScopedEnv host("KUBERNETES_SERVICE_HOST", "10.0.0.1");
  auto from_env = LoadConfig();
  ASSERT_TRUE(from_env.ok()) << from_env.error().ToString();
  EXPECT_EQ(from_env->server, "https://127.0.0.1:6443");
  auto explicit_path = LoadConfig((dir_ / "other").string());
  ASSERT_TRUE(explicit_path.ok()) << explicit_path.error().ToString();
  EXPECT_EQ(explicit_path->server, "https://other:1");
}

TEST_F(InClusterTest, LoadConfigFallsBackToInClusterWithoutKubeconfig) {
  ScopedEnv kubeconfig("KUBECONFIG", nullptr);
  ScopedEnv host("KUBERNETES_SERVICE_HOST", "10.0.0.1");
  ScopedEnv port("KUBERNETES_SERVICE_PORT", "443");
  // The in-cluster path was taken, whether or not this machine has the
  // default mount.
  auto config = LoadConfig();
  if (config.ok()) {
    EXPECT_THAT(config->source, HasSubstr("in-cluster"));
  } else {
    EXPECT_THAT(config.error().message, HasSubstr("in-cluster config: token"));
  }
}

}  // namespace
}  // namespace ax::kube
