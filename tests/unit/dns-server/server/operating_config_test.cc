// The operating-surface flags: the redirector and the decision log are off by
// default; their values are checked when parsed.
#include <gtest/gtest.h>

#include "server/config.h"

namespace ax::dns {
namespace {

ConfigResult Parse(std::vector<std::string> extra) {
  extra.insert(extra.begin(), {"--snapshot", "/tmp/s.json"});
  return ParseConfig(extra, {});
}

TEST(OperatingConfigTest, OffByDefault) {
  const ConfigResult r = Parse({});
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.config.redirect_listen, "");
  EXPECT_FALSE(r.config.redirect_trust_xff);
  EXPECT_EQ(r.config.decision_log, "");
  EXPECT_DOUBLE_EQ(r.config.decision_log_sample, 0.01);
}

TEST(OperatingConfigTest, FlagsAndEnvironment) {
  ConfigResult r =
      Parse({"--redirect-listen", "[::1]:8081", "--redirect-trust-xff",
             "--decision-log", "-", "--decision-log-sample=0.5"});
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.config.redirect_listen, "[::1]:8081");
  EXPECT_TRUE(r.config.redirect_trust_xff);
  EXPECT_EQ(r.config.decision_log, "-");
  EXPECT_DOUBLE_EQ(r.config.decision_log_sample, 0.5);
  r = ParseConfig({"--snapshot", "/tmp/s.json"},
                  {{"AX_DNS_DECISION_LOG_SAMPLE", "1"}});
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_DOUBLE_EQ(r.config.decision_log_sample, 1);
}

TEST(OperatingConfigTest, BadValuesAreErrors) {
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"--redirect-listen", "localhost:80"},
           {"--redirect-listen", "127.0.0.1"},
           {"--decision-log-sample", "1.5"},
           {"--decision-log-sample", "-0.1"},
           {"--decision-log-sample", "often"},
           {"--decision-log-sample", ""}}) {
    const ConfigResult r = Parse(args);
    EXPECT_FALSE(r.ok) << args[0] << " " << args[1];
    EXPECT_NE(r.error.find(args[0]), std::string::npos) << r.error;
  }
}

}  // namespace
}  // namespace ax::dns
