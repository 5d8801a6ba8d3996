// ax-operator flags: defaults, precedence (flag > env > file), the POD_NAME
// identity, the --owner kinds, and refusals.
#include "config.h"

#include <gtest/gtest.h>

#include "temp_dir.h"

namespace ax::controller {
namespace {

OperatorConfigResult Parse(std::vector<std::string> args,
                           std::map<std::string, std::string> env = {}) {
  return ParseOperatorConfig(args, env);
}

TEST(OperatorConfig, Defaults) {
  const OperatorConfigResult r = Parse({}, {{"POD_NAME", "ax-operator-0"}});
  ASSERT_TRUE(r.ok) << r.error;
  const OperatorConfig& c = r.config;
  EXPECT_EQ(c.kubeconfig, "");
  EXPECT_EQ(c.namespace_name, "");
  EXPECT_EQ(c.route_table, "ax-route-table");
  EXPECT_EQ(c.history, 5u);
  EXPECT_EQ(c.owner_service_account, "");
  EXPECT_TRUE(c.leader_elect);
  EXPECT_EQ(c.lease_name, "ax-operator");
  EXPECT_EQ(c.identity, "ax-operator-0");
  EXPECT_EQ(c.pod, "ax-operator-0");
  EXPECT_EQ(c.lease_duration, std::chrono::seconds(15));
  EXPECT_EQ(c.renew_deadline, std::chrono::seconds(10));
  EXPECT_EQ(c.retry_period, std::chrono::seconds(2));
  EXPECT_EQ(c.http_listen, "0.0.0.0:8082");
  EXPECT_EQ(c.resync, std::chrono::seconds(30));
  EXPECT_EQ(c.debounce, std::chrono::milliseconds(100));
}

TEST(OperatorConfig, IdentityDefaultsToTheHostName) {
  const OperatorConfigResult r = Parse({});
  ASSERT_TRUE(r.ok);
  EXPECT_FALSE(r.config.identity.empty());
  EXPECT_EQ(r.config.pod, r.config.identity);
}

TEST(OperatorConfig, FlagBeatsEnvBeatsFile) {
  ax::testing::TempDir dir;
  const std::string file = (dir / "operator.yaml").string();
  ax::testing::WriteFile(file,
                         "route-table: from-file\nhistory: 7\nresync: 1m\n");
  const OperatorConfigResult r =
      Parse({"--config", file, "--route-table=from-flag", "--no-such"}, {});
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error, "unknown flag --no-such (see --help)");
  const OperatorConfigResult ok = Parse(
      {"--config", file, "--route-table=from-flag", "--leader-elect=false"},
      {{"AX_OPERATOR_ROUTE_TABLE", "from-env"},
       {"AX_OPERATOR_HISTORY", "3"},
       {"AX_OPERATOR_IDENTITY", "op-a"}});
  ASSERT_TRUE(ok.ok) << ok.error;
  EXPECT_EQ(ok.config.route_table, "from-flag");
  EXPECT_EQ(ok.config.history, 3u);
  EXPECT_EQ(ok.config.resync, std::chrono::minutes(1));
  EXPECT_FALSE(ok.config.leader_elect);
  EXPECT_EQ(ok.config.identity, "op-a");
}

TEST(OperatorConfig, OwnerIsAServiceAccount) {
  const OperatorConfigResult r = Parse({"--owner=ServiceAccount/ax-operator"});
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.config.owner_service_account, "ax-operator");
  EXPECT_EQ(Parse({"--owner=Deployment/ax-operator"}).error,
            "--owner: kind Deployment is not supported (only ServiceAccount)");
  EXPECT_EQ(Parse({"--owner=ax-operator"}).error,
            "--owner: want KIND/NAME, got \"ax-operator\"");
  EXPECT_EQ(Parse({"--owner=ServiceAccount/"}).error,
            "--owner: want KIND/NAME, got \"ServiceAccount/\"");
}

TEST(OperatorConfig, Refusals) {
  EXPECT_EQ(Parse({"--history=0"}).error,
            "--history: bad number \"0\" (want 1..100)");
  EXPECT_EQ(Parse({"--lease-duration=1500ms"}).error,
            "--lease-duration: whole seconds (the Lease stores seconds)");
  EXPECT_EQ(Parse({"--resync=0s"}).error, "--resync: must be longer than 0");
  EXPECT_EQ(Parse({"--route-table="}).error,
            "--route-table: must not be empty");
  EXPECT_FALSE(Parse({"--http-listen=nowhere"}).ok);
  EXPECT_NE(OperatorHelpText().find("--leader-elect "), std::string::npos);
  EXPECT_NE(OperatorHelpText().find("[default: ax-route-table]"),
            std::string::npos);
}

}  // namespace
}  // namespace ax::controller
