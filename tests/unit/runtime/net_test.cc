// Endpoint parsing and formatting, and port-0 binds reporting the real port.
#include "ax/runtime/net.h"

#include <gtest/gtest.h>

namespace ax::runtime {
namespace {

TEST(NetTest, ParsesAndFormatsEndpoints) {
  for (const char* text : {"127.0.0.1:53", "[::1]:5353", "[::]:0",
                           "0.0.0.0:65535", "[2001:db8::1]:8080"}) {
    Endpoint e;
    std::string error;
    ASSERT_TRUE(ParseEndpoint(text, &e, &error)) << text << ": " << error;
    EXPECT_EQ(e.ToString(), text);
    socklen_t len = 0;
    EXPECT_EQ(Endpoint::FromSockaddr(e.ToSockaddr(&len)), e);
  }
}

TEST(NetTest, RejectsWhatIsNotAnEndpoint) {
  for (const char* text : {"", "53", "127.0.0.1", "127.0.0.1:", ":53", "::1:53",
                           "[::1]", "[::1]53", "example.test:53", "1.2.3.4:-1",
                           "1.2.3.4:65536", "1.2.3.4:5x"}) {
    Endpoint e;
    std::string error;
    EXPECT_FALSE(ParseEndpoint(text, &e, &error)) << text;
    EXPECT_FALSE(error.empty()) << text;
  }
}

TEST(NetTest, PortZeroBindsAFreePortAndSharesIt) {
  Endpoint at;
  std::string error;
  ASSERT_TRUE(ParseEndpoint("127.0.0.1:0", &at, &error));
  Fd first = BindSocket(at, SOCK_DGRAM, &error);
  ASSERT_TRUE(first.valid()) << error;
  const Endpoint bound = LocalEndpoint(first.get());
  EXPECT_NE(bound.port, 0);
  // SO_REUSEPORT: a second worker socket joins the same port.
  Fd second = BindSocket(bound, SOCK_DGRAM, &error);
  EXPECT_TRUE(second.valid()) << error;
}

TEST(NetTest, CountsWhatTheKernelDroppedForASocket) {
  Endpoint at;
  std::string error;
  ASSERT_TRUE(ParseEndpoint("127.0.0.1:0", &at, &error));
  Fd receiver = BindSocket(at, SOCK_DGRAM, &error);
  ASSERT_TRUE(receiver.valid()) << error;
  const int small = 1;  // the kernel's minimum: a few datagrams fit
  ASSERT_EQ(::setsockopt(receiver.get(), SOL_SOCKET, SO_RCVBUF, &small,
                         sizeof(small)),
            0);
  EXPECT_EQ(SocketDrops(receiver.get()), 0u);
  const Endpoint to = LocalEndpoint(receiver.get());
  socklen_t len = 0;
  const sockaddr_storage address = to.ToSockaddr(&len);
  Fd sender(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  ASSERT_TRUE(sender.valid());
  constexpr int kSent = 200;
  const char payload[512] = {};
  for (int i = 0; i < kSent; ++i) {
    ASSERT_EQ(::sendto(sender.get(), payload, sizeof(payload), 0,
                       reinterpret_cast<const sockaddr*>(&address), len),
              static_cast<ssize_t>(sizeof(payload)));
  }
  // Nothing was read: what did not fit was dropped, and every datagram is
  // either queued or counted.
  int queued = 0;
  char buf[512];
  while (::recv(receiver.get(), buf, sizeof(buf), MSG_DONTWAIT) > 0) ++queued;
  const uint64_t dropped = SocketDrops(receiver.get());
  EXPECT_GT(dropped, 0u);
  EXPECT_EQ(dropped + static_cast<uint64_t>(queued), uint64_t{kSent});
}

}  // namespace
}  // namespace ax::runtime
