// ax-probe settings: defaults, flag > env > file precedence, and refusals.
#include "sidecar/config.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace ax::probe {
namespace {

using namespace std::chrono_literals;

SidecarConfigResult Parse(std::vector<std::string> args,
                          std::map<std::string, std::string> env = {}) {
  return ParseSidecarConfig(args, env);
}

TEST(SidecarConfigTest, Defaults) {
  const auto r = Parse({"--manifests", "/m"});
  ASSERT_TRUE(r.ok) << r.error;
  const SidecarConfig& c = r.config;
  EXPECT_EQ(c.manifests_dir, "/m");
  char host[256] = {};
  ::gethostname(host, sizeof(host) - 1);
  EXPECT_EQ(c.vantage, host);
  EXPECT_EQ(c.report, "-");
  EXPECT_EQ(c.heartbeat, 10s);
  EXPECT_EQ(c.http_listen, "0.0.0.0:8081");
  EXPECT_FALSE(c.probe_insecure);
  EXPECT_EQ(c.reload_debounce, 200ms);
  EXPECT_EQ(c.log_level, runtime::LogLevel::kInfo);
}

TEST(SidecarConfigTest, FlagsBeatEnvBeatsFile) {
  const std::string file =
      (std::filesystem::temp_directory_path() /
       ("ax-probe-config-" + std::to_string(::getpid()) + ".yaml"))
          .string();
  {
    std::ofstream out(file);
    out << "manifests: /from-file\nvantage: file-vantage\nheartbeat: 30s\n"
           "probe-insecure: true\n";
  }
  const auto r = Parse({"--config", file, "--vantage=flag-vantage", "--report",
                        "/tmp/r.json", "--http-listen", ""},
                       {{"AX_PROBE_VANTAGE", "env-vantage"},
                        {"AX_PROBE_HEARTBEAT", "2s"},
                        {"AX_PROBE_LOG_LEVEL", "debug"},
                        {"AX_DNS_HEARTBEAT", "1s"}});
  std::filesystem::remove(file);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.config.manifests_dir, "/from-file");
  EXPECT_EQ(r.config.vantage, "flag-vantage");
  EXPECT_EQ(r.config.heartbeat, 2s);
  EXPECT_TRUE(r.config.probe_insecure);
  EXPECT_EQ(r.config.report, "/tmp/r.json");
  EXPECT_EQ(r.config.http_listen, "");
  EXPECT_EQ(r.config.log_level, runtime::LogLevel::kDebug);
}

TEST(SidecarConfigTest, Refusals) {
  EXPECT_EQ(Parse({}).error,
            "what to probe: --manifests DIR (standalone) or --nodes-api (the "
            "Node objects; see --help)");
  EXPECT_EQ(Parse({"--manifests", "/m", "--nodes-api"}).error,
            "--manifests and --nodes-api exclude each other: probe the Nodes "
            "of a directory or of the Kubernetes API");
  EXPECT_EQ(Parse({"--manifests", "/m", "--heartbeat", "soon"})
                .error.rfind("--heartbeat: ", 0),
            0u);
  EXPECT_EQ(Parse({"--manifests", "/m", "--heartbeat", "0s"}).error,
            "--heartbeat: must be longer than 0");
  EXPECT_EQ(Parse({"--manifests", "/m", "--listen", "x"}).error,
            "unknown flag --listen (see --help)");
  EXPECT_EQ(Parse({"--manifests", "/m", "--http-listen", "localhost"})
                .error.rfind("--http-listen: ", 0),
            0u);
  EXPECT_EQ(Parse({"--manifests"}).error, "flag --manifests needs a value");
  EXPECT_FALSE(Parse({"--manifests", "/m", "--log-level", "loud"}).ok);
}

TEST(SidecarConfigTest, TheVantagesPlaceInTheNetwork) {
  const auto r =
      Parse({"--manifests", "/m", "--vantage-area", "cn-south",
             "--vantage-label", "tier=edge", "--vantage-label", "site=gz-idc"},
            {{"AX_PROBE_VANTAGE_ISP", "unicom"}});
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(
      r.config.identity,
      (VantageIdentity{.area = "cn-south",
                       .isp = "unicom",
                       .labels = {{"site", "gz-idc"}, {"tier", "edge"}}}));
  // The chart passes labels as one comma list in the environment.
  const auto env =
      Parse({"--manifests", "/m"}, {{"AX_PROBE_VANTAGE_LABEL", "a=1,b="}});
  ASSERT_TRUE(env.ok) << env.error;
  EXPECT_EQ(env.config.identity.labels,
            (std::map<std::string, std::string>{{"a", "1"}, {"b", ""}}));
  EXPECT_EQ(Parse({"--manifests", "/m", "--vantage-label", "tier"}).error,
            "--vantage-label: \"tier\" is not KEY=VALUE");
  EXPECT_EQ(Parse({"--manifests", "/m", "--vantage-label", "a=1",
                   "--vantage-label", "a=2"})
                .error,
            "--vantage-label: label \"a\" given twice");
}

TEST(SidecarConfigTest, ReportApiAndThePodFromTheDownwardApi) {
  const auto r = Parse({"--manifests", "/m", "--report-api", "--kubeconfig",
                        "/k", "--namespace", "ax-system"},
                       {{"POD_NAME", "ax-dns-0"}, {"POD_UID", "1234-abcd"}});
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(r.config.report_api);
  EXPECT_EQ(r.config.kubeconfig, "/k");
  EXPECT_EQ(r.config.namespace_name, "ax-system");
  EXPECT_EQ(r.config.pod_name, "ax-dns-0");
  EXPECT_EQ(r.config.pod_uid, "1234-abcd");
  EXPECT_FALSE(Parse({"--manifests", "/m"}).config.report_api);
}

TEST(SidecarConfigTest, NodesApiInsteadOfManifests) {
  const auto r = Parse({"--nodes-api", "--report-api"},
                       {{"AX_PROBE_NAMESPACE", "ax-system"}});
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(r.config.nodes_api);
  EXPECT_EQ(r.config.manifests_dir, "");
  EXPECT_EQ(r.config.namespace_name, "ax-system");
  EXPECT_FALSE(Parse({"--manifests", "/m"}).config.nodes_api);
}

TEST(SidecarConfigTest, HelpListsEveryFlag) {
  const auto r = Parse({"--help"});
  EXPECT_TRUE(r.ok);
  EXPECT_TRUE(r.help);
  const std::string help = SidecarHelpText();
  for (const char* flag :
       {"--manifests DIR", "--vantage NAME", "--report FILE",
        "--heartbeat DURATION", "--http-listen ADDR:PORT", "--probe-ca FILE",
        "--probe-insecure", "--probe-token-dir DIR", "--log-level LEVEL",
        "--report-api", "--nodes-api", "--kubeconfig FILE", "--namespace NS",
        "AX_PROBE_<FLAG>"}) {
    EXPECT_NE(help.find(flag), std::string::npos) << flag;
  }
}

}  // namespace
}  // namespace ax::probe
