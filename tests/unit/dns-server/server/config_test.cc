// ax-dns configuration: defaults, flag > env > file precedence, list flags,
// the zones section, --help, and clear errors for bad input.
#include "server/config.h"

#include <gtest/gtest.h>

#include "server_test_support.h"

namespace ax::dns {
namespace {

using testing::TempDir;
using testing::WriteFile;
using Env = std::map<std::string, std::string>;

ConfigResult Parse(const std::vector<std::string>& args, const Env& env = {}) {
  return ParseConfig(args, env);
}

TEST(ConfigTest, Defaults) {
  const ConfigResult r = Parse({"--standalone", "dir"});
  ASSERT_TRUE(r.ok) << r.error;
  const ServerConfig& c = r.config;
  EXPECT_EQ(c.standalone_dir, "dir");
  ASSERT_EQ(c.listen.size(), 1u);
  EXPECT_EQ(c.listen[0].ToString(), "0.0.0.0:53");
  EXPECT_EQ(c.http_listen, "0.0.0.0:8080");
  EXPECT_EQ(c.tcp_idle_timeout, std::chrono::seconds(10));
  EXPECT_EQ(c.tcp_max_connections, 1000);
  EXPECT_EQ(c.udp_rcvbuf, 4 << 20);
  EXPECT_TRUE(c.rrl);
  EXPECT_EQ(c.rrl_rate, 100u);
  EXPECT_EQ(c.rrl_nxdomain_rate, 1000u);
  EXPECT_EQ(c.rrl_error_rate, 100u);
  EXPECT_EQ(c.rrl_slip, 2u);
  EXPECT_EQ(c.rrl_sample, 8u);
  EXPECT_FALSE(c.identity.empty());  // the host name
  EXPECT_EQ(c.geo_paths, GeoFieldPaths{});
  EXPECT_TRUE(c.geo_db.empty());
  EXPECT_TRUE(c.zones.empty());
}

TEST(ConfigTest, FlagBeatsEnvBeatsFileBeatsDefault) {
  TempDir dir;
  WriteFile(dir / "ax.yaml",
            "standalone: /from/file\n"
            "tcp-idle-timeout: 3s\n"
            "tcp-max-connections: 7\n"
            "workers: 3\n"
            "listen: ['127.0.0.1:1053', '[::1]:1053']\n");
  const Env env = {{"AX_DNS_CONFIG", (dir / "ax.yaml").string()},
                   {"AX_DNS_TCP_MAX_CONNECTIONS", "8"},
                   {"AX_DNS_WORKERS", "4"},
                   {"AX_DNS_NO_RRL", "true"},
                   {"UNRELATED", "x"}};
  const ConfigResult r = Parse({"--workers=5"}, env);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.config.standalone_dir, "/from/file");                  // file
  EXPECT_EQ(r.config.tcp_idle_timeout, std::chrono::seconds(3));     // file
  EXPECT_EQ(r.config.tcp_max_connections, 8);                        // env
  EXPECT_EQ(r.config.workers, 5);                                    // flag
  EXPECT_FALSE(r.config.rrl);                                        // env
  EXPECT_EQ(r.config.tcp_message_timeout, std::chrono::seconds(5));  // default
  ASSERT_EQ(r.config.listen.size(), 2u);
  EXPECT_EQ(r.config.listen[1].ToString(), "[::1]:1053");
}

TEST(ConfigTest, ListsRepeatOnTheCommandLineAndSplitInEnv) {
  ConfigResult r =
      Parse({"--snapshot", "s.json", "--listen", "127.0.0.1:0",
             "--listen=[::1]:0", "--zone", "a.test", "--zone", "b.test"});
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_EQ(r.config.listen.size(), 2u);
  EXPECT_EQ(r.config.listen[1].ip.family, IpFamily::kV6);
  ASSERT_EQ(r.config.zones.size(), 2u);
  EXPECT_EQ(r.config.zones[1].name, "b.test");

  r = Parse({"--snapshot", "s.json"},
            {{"AX_DNS_LISTEN", "127.0.0.1:53,[::]:53"},
             {"AX_DNS_GEO_DB", "v4.mmdb,v6.mmdb"}});
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.config.listen.size(), 2u);
  EXPECT_EQ(r.config.geo_db, (std::vector<std::string>{"v4.mmdb", "v6.mmdb"}));
}

TEST(ConfigTest, ZonesSectionAndZoneFlagsCombine) {
  TempDir dir;
  WriteFile(dir / "ax.yaml",
            "snapshot: s.json\n"
            "zones:\n"
            "  - name: example.test\n"
            "    ns: [ns1.example.net, ns2.example.net]\n"
            "    minimum: 30\n");
  const ConfigResult r =
      Parse({"--config", (dir / "ax.yaml").string(), "--zone", "example.test",
             "--zone", "Other.Test."});
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_EQ(r.config.zones.size(), 2u);
  EXPECT_EQ(r.config.zones[0].minimum, 30u);
  EXPECT_EQ(r.config.zones[0].ns.size(), 2u);
  EXPECT_EQ(r.config.zones[0].mname, "");  // ServingState's default
  EXPECT_EQ(r.config.zones[1].name, "other.test");
}

TEST(ConfigTest, ZoneNameServersFromFlagsEnvAndFile) {
  const IpAddress v4 = *ParseIp("192.0.2.53");
  const IpAddress v6 = *ParseIp("2001:db8::53");
  ConfigResult r =
      Parse({"--snapshot", "s.json", "--zone",
             "Example.Test=NS1.example.test.@192.0.2.53@2001:db8::53",
             "--zone=example.test=ns.example.net", "--zone", "other.test"});
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_EQ(r.config.zones.size(), 2u);
  const ZoneConfig& z = r.config.zones[0];
  EXPECT_EQ(z.name, "example.test");
  ASSERT_EQ(z.ns.size(), 2u);
  EXPECT_EQ(z.ns[0].name, "ns1.example.test");
  EXPECT_EQ(z.ns[0].addresses, (std::vector<IpAddress>{v4, v6}));
  EXPECT_EQ(z.ns[1].name, "ns.example.net");
  EXPECT_TRUE(z.ns[1].addresses.empty());
  EXPECT_TRUE(r.config.zones[1].ns.empty());  // ServingState's default

  // Env lists are comma-separated: one name server per item.
  r = Parse({"--snapshot", "s.json"},
            {{"AX_DNS_ZONE",
              "a.test=ns1.a.test@192.0.2.53,a.test=ns2.a.test@2001:db8::53"}});
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_EQ(r.config.zones.size(), 1u);
  ASSERT_EQ(r.config.zones[0].ns.size(), 2u);
  EXPECT_EQ(r.config.zones[0].ns[1].addresses, std::vector<IpAddress>{v6});

  TempDir dir;
  WriteFile(dir / "ax.yaml",
            "snapshot: s.json\n"
            "zones:\n"
            "  - name: example.test\n"
            "    ns: ['ns1.example.test@192.0.2.53@2001:db8::53', "
            "ns.example.net]\n"
            "    rname: dns.example.net\n"
            "  - name: b.test\n"
            "    ns:\n"
            "      - ns1.b.test@192.0.2.53\n");
  r = Parse({"--config", (dir / "ax.yaml").string()});
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_EQ(r.config.zones.size(), 2u);
  ASSERT_EQ(r.config.zones[0].ns.size(), 2u);
  EXPECT_EQ(r.config.zones[0].ns[0].addresses,
            (std::vector<IpAddress>{v4, v6}));
  EXPECT_EQ(r.config.zones[1].ns[0].addresses, std::vector<IpAddress>{v4});

  // A flag's name servers replace the file's for that zone (flag > file); the
  // file's other fields stay.
  r = Parse({"--config", (dir / "ax.yaml").string(), "--zone",
             "example.test=ns9.example.test@192.0.2.53"});
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_EQ(r.config.zones[0].ns.size(), 1u);
  EXPECT_EQ(r.config.zones[0].ns[0].name, "ns9.example.test");
  EXPECT_EQ(r.config.zones[0].rname, "dns.example.net");
  EXPECT_EQ(r.config.zones[1].ns.size(), 1u);
}

TEST(ConfigTest, GeoSchemaThenFieldOverrides) {
  const ConfigResult r = Parse({"--snapshot", "s", "--geo-schema", "dbip",
                                "--geo-field", "asn=autonomous_system_number"});
  ASSERT_TRUE(r.ok) << r.error;
  GeoFieldPaths want = *GeoFieldPathsForSchema("dbip");
  want.asn = {"autonomous_system_number"};
  EXPECT_EQ(r.config.geo_paths, want);
}

TEST(ConfigTest, DurationsSizesAndBooleans) {
  const ConfigResult r =
      Parse({"--snapshot", "s", "--tcp-idle-timeout", "250ms", "--udp-rcvbuf",
             "512KiB", "--no-rrl", "--rebuild-interval", "2m"});
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.config.tcp_idle_timeout, std::chrono::milliseconds(250));
  EXPECT_EQ(r.config.udp_rcvbuf, 512 << 10);
  EXPECT_FALSE(r.config.rrl);
  EXPECT_EQ(r.config.rebuild_interval, std::chrono::minutes(2));
}

TEST(ConfigTest, HelpListsEveryFlagWithDefaults) {
  const ConfigResult r = Parse({"--bogus-is-ignored-after", "--help"});
  EXPECT_FALSE(r.ok);  // the unknown flag comes first
  const ConfigResult h = Parse({"--help"});
  EXPECT_TRUE(h.ok && h.help);
  const std::string help = HelpText();
  for (const char* flag :
       {"--standalone", "--snapshot", "--listen", "--http-listen", "--geo-db",
        "--asn-db", "--workers", "--tcp-idle-timeout", "--tcp-max-connections",
        "--rrl-rate", "--rrl-slip", "--rrl-sample", "--no-rrl", "--identity",
        "--zone", "--config"}) {
    EXPECT_NE(help.find(flag), std::string::npos) << flag;
  }
  EXPECT_NE(help.find("[default: 10s]"), std::string::npos);
}

TEST(ConfigTest, BadInputIsAClearError) {
  struct Case {
    std::vector<std::string> args;
    std::string error;
  };
  const std::vector<Case> cases = {
      {{"--standalone", "d", "--nope"}, "unknown flag --nope"},
      {{"--standalone", "d", "--workers", "many"}, "--workers: bad number"},
      {{"--standalone", "d", "--listen", "localhost:53"}, "not an IP address"},
      {{"--standalone", "d", "--listen", "::1:53"}, "expected ADDR:PORT"},
      {{"--standalone", "d", "--listen", "1.2.3.4:70000"}, "bad port"},
      {{"--standalone", "d", "--tcp-idle-timeout", "10 parsecs"},
       "bad duration"},
      {{"--standalone", "d", "--geo-schema", "nope"}, "unknown geo schema"},
      {{"--standalone", "d", "--http-listen", "8080"}, "--http-listen"},
      {{"--standalone", "d", "--workers"}, "needs a value"},
      {{"--standalone", "d", "--rrl-sample", "0"}, "--rrl-sample"},
      {{"stray"}, "unexpected argument"},
      {{}, "exactly one of --standalone"},
      {{"--standalone", "d", "--snapshot", "f"}, "exactly one of"},
      {{"--snapshot", "f", "--snapshot-configmap", "ax-system/rt"},
       "exactly one of"},
      {{"--snapshot-configmap", "rt"}, "\"rt\" is not NAMESPACE/NAME"},
      {{"--snapshot-configmap", "a/b/c"}, "is not NAMESPACE/NAME"},
      {{"--snapshot-configmap", "/rt"}, "is not NAMESPACE/NAME"},
      {{"--standalone", "d", "--config", "/nonexistent/ax.yaml"},
       "config file"},
      {{"--standalone", "d", "--zone", "example.test=ns1.example.test@nope"},
       "--zone: zone example.test: name server "
       "\"ns1.example.test@nope\": \"nope\" is not an IP address"},
      {{"--standalone", "d", "--zone", "example.test=@192.0.2.53"},
       "has no name"},
      {{"--standalone", "d", "--zone", "example.test=ns1.example.test@"},
       "\"\" is not an IP address"},
  };
  for (const Case& c : cases) {
    const ConfigResult r = Parse(c.args);
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.error.find(c.error), std::string::npos)
        << "got: " << r.error << "\nwant: " << c.error;
  }
}

TEST(ConfigTest, SnapshotConfigMapSplitsNamespaceAndName) {
  const ConfigResult r =
      Parse({"--snapshot-configmap", "ax-system/ax-route-table", "--kubeconfig",
             "/etc/ax/kubeconfig"});
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.config.snapshot_configmap_namespace, "ax-system");
  EXPECT_EQ(r.config.snapshot_configmap_name, "ax-route-table");
  EXPECT_EQ(r.config.kubeconfig, "/etc/ax/kubeconfig");
}

TEST(ConfigTest, BadZoneNameServerInConfigFile) {
  TempDir dir;
  WriteFile(dir / "ax.yaml",
            "standalone: d\n"
            "zones:\n"
            "  - name: example.test\n"
            "    ns: [ns1.example.test@192.0.2.999]\n");
  const ConfigResult r = Parse({"--config", (dir / "ax.yaml").string()});
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("zones: example.test: name server"), std::string::npos)
      << r.error;
}

TEST(ConfigTest, UnknownConfigFileKeyIsAnError) {
  TempDir dir;
  WriteFile(dir / "ax.yaml", "standalone: d\nlisten-on: 1.2.3.4:53\n");
  const ConfigResult r = Parse({"--config", (dir / "ax.yaml").string()});
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("unknown key \"listen-on\""), std::string::npos)
      << r.error;
}

}  // namespace
}  // namespace ax::dns
