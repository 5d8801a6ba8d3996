// How UDP answers meet the path MTU: the policy chosen from --edns-udp-size,
// the socket option it sets, and the DF bit on the answers a UdpServer sends
// (read from the IPv4 header by a raw socket, which needs CAP_NET_RAW).
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/udp.h>
#include <poll.h>
#include <sys/socket.h>

#include <chrono>
#include <cstring>
#include <optional>
#include <string>

#include "dns_client.h"
#include "server/query_context.h"
#include "server/snapshot_store.h"
#include "server/telemetry.h"
#include "server/udp_server.h"
#include "server_test_support.h"
#include "udp_loopback.h"

namespace ax::dns {
namespace {

int MtuDiscover(int fd, int family) {
  int mode = -1;
  socklen_t len = sizeof(mode);
  const bool v4 = family == AF_INET;
  ::getsockopt(fd, v4 ? IPPROTO_IP : IPPROTO_IPV6,
               v4 ? IP_MTU_DISCOVER : IPV6_MTU_DISCOVER, &mode, &len);
  return mode;
}

TEST(UdpFragmentTest, AnswersThatFitEveryPathAreNeverFragmented) {
  EXPECT_EQ(FragmentPolicyFor(512), FragmentPolicy::kDontFragment);
  EXPECT_EQ(FragmentPolicyFor(1232), FragmentPolicy::kDontFragment);
  EXPECT_EQ(FragmentPolicyFor(1233), FragmentPolicy::kInterfaceMtu);
  EXPECT_EQ(FragmentPolicyFor(4096), FragmentPolicy::kInterfaceMtu);
}

TEST(UdpFragmentTest, EachPolicyIgnoresPathMtuOnBothFamilies) {
  for (const int family : {AF_INET, AF_INET6}) {
    SCOPED_TRACE(family == AF_INET ? "IPv4" : "IPv6");
    runtime::Fd fd(::socket(family, SOCK_DGRAM | SOCK_CLOEXEC, 0));
    ASSERT_TRUE(fd.valid());
    std::string error;
    ASSERT_TRUE(ApplyFragmentPolicy(fd.get(), family,
                                    FragmentPolicy::kDontFragment, &error))
        << error;
    EXPECT_EQ(MtuDiscover(fd.get(), family), IP_PMTUDISC_PROBE);
    ASSERT_TRUE(ApplyFragmentPolicy(fd.get(), family,
                                    FragmentPolicy::kInterfaceMtu, &error))
        << error;
    EXPECT_EQ(MtuDiscover(fd.get(), family), IP_PMTUDISC_OMIT);
  }
}

TEST(UdpFragmentTest, AFailedSetsockoptNamesTheOption) {
  std::string error;
  EXPECT_FALSE(
      ApplyFragmentPolicy(-1, AF_INET, FragmentPolicy::kDontFragment, &error));
  EXPECT_NE(error.find("IP_MTU_DISCOVER"), std::string::npos) << error;
  EXPECT_FALSE(
      ApplyFragmentPolicy(-1, AF_INET6, FragmentPolicy::kInterfaceMtu, &error));
  EXPECT_NE(error.find("IPV6_MTU_DISCOVER"), std::string::npos) << error;
}

// The DF bit of the first IPv4 datagram from `port` that `raw` sees.
std::optional<bool> DontFragmentFrom(int raw, uint16_t port) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  uint8_t packet[65536];
  while (std::chrono::steady_clock::now() < until) {
    pollfd p{.fd = raw, .events = POLLIN, .revents = 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    const ssize_t n = ::recv(raw, packet, sizeof(packet), 0);
    if (n < static_cast<ssize_t>(sizeof(iphdr) + sizeof(udphdr))) continue;
    iphdr ip;
    std::memcpy(&ip, packet, sizeof(ip));
    udphdr udp;
    std::memcpy(&udp, packet + ip.ihl * 4, sizeof(udp));
    if (ntohs(udp.source) == port) return (ntohs(ip.frag_off) & IP_DF) != 0;
  }
  return std::nullopt;
}

// What reaches the wire: answers of a server at the default size carry DF,
// those of one allowing 4096-octet answers do not.
TEST(UdpFragmentTest, TheServersAnswersCarryDfOnlyAtSizesEveryPathTakes) {
  runtime::Fd raw(::socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_UDP));
  if (!raw.valid()) GTEST_SKIP() << "no CAP_NET_RAW to read IP headers";
  SnapshotStore store({}, /*history=*/1);
  Telemetry telemetry(nullptr);
  for (const int max_payload : {1232, 4096}) {
    SCOPED_TRACE(max_payload);
    // SERVFAIL (nothing is served yet) is an answer like any other here.
    const std::unique_ptr<UdpServer> server = testing::StartLoopbackUdp(
        QueryContext{.store = &store, .telemetry = &telemetry}, max_payload);
    ASSERT_FALSE(HasFailure());
    EXPECT_EQ(DontFragmentFrom(raw.get(), server->bound().at(0).port),
              max_payload <= 1232);
    server->Stop();
  }
}

}  // namespace
}  // namespace ax::dns
