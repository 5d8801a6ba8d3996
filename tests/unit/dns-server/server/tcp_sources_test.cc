// Connections per source: an IPv4 address or an IPv6 /64 is one source, each
// admitted up to the limit, a slot freed by a release.
#include "server/tcp_sources.h"

#include <gtest/gtest.h>

namespace ax::dns {
namespace {

IpAddress Ip(const char* text) { return *ParseIp(text); }

TEST(TcpSourcesTest, AdmitsUpToTheLimitPerSource) {
  TcpSources sources(2);
  EXPECT_TRUE(sources.Admit(Ip("192.0.2.1")));
  EXPECT_TRUE(sources.Admit(Ip("192.0.2.1")));
  EXPECT_FALSE(sources.Admit(Ip("192.0.2.1")));
  EXPECT_TRUE(sources.Admit(Ip("192.0.2.2")));  // the next address is another
  EXPECT_EQ(sources.Count(Ip("192.0.2.1")), 2);
  sources.Release(Ip("192.0.2.1"));
  EXPECT_TRUE(sources.Admit(Ip("192.0.2.1")));
}

TEST(TcpSourcesTest, AnIpv6Slash64IsOneSource) {
  TcpSources sources(2);
  EXPECT_TRUE(sources.Admit(Ip("2001:db8:0:1::1")));
  EXPECT_TRUE(sources.Admit(Ip("2001:db8:0:1:ffff::9")));
  EXPECT_FALSE(sources.Admit(Ip("2001:db8:0:1::2")));
  EXPECT_TRUE(sources.Admit(Ip("2001:db8:0:2::1")));
}

TEST(TcpSourcesTest, ZeroMeansNoLimit) {
  TcpSources sources(0);
  for (int i = 0; i < 5000; ++i) ASSERT_TRUE(sources.Admit(Ip("192.0.2.1")));
  EXPECT_EQ(sources.Count(Ip("192.0.2.1")), 5000);
}

TEST(TcpSourcesTest, ReleasingEverythingForgetsTheSource) {
  TcpSources sources(1);
  EXPECT_TRUE(sources.Admit(Ip("192.0.2.1")));
  sources.Release(Ip("192.0.2.1"));
  sources.Release(Ip("192.0.2.1"));  // an extra release changes nothing
  EXPECT_EQ(sources.Count(Ip("192.0.2.1")), 0);
  EXPECT_TRUE(sources.Admit(Ip("192.0.2.1")));
  EXPECT_FALSE(sources.Admit(Ip("192.0.2.1")));
}

}  // namespace
}  // namespace ax::dns
