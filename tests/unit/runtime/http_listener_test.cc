// HttpListener's limits on a real socket: a body over the limit (or chunked)
// is answered 413 from its headers alone, before a byte of it is sent; a
// small body still reaches the route.
#include "ax/runtime/http_listener.h"

#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

#include "ax/ip.h"

namespace ax::runtime {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

// Sends `request` on a fresh connection and reads until the peer closes (the
// requests ask it to) or 2 s pass; what came back.
std::string Exchange(uint16_t port, const std::string& request) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  timeval timeout{2, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  std::string reply;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
      ::send(fd, request.data(), request.size(), MSG_NOSIGNAL) ==
          static_cast<ssize_t>(request.size())) {
    char buf[4096];
    ssize_t n;
    while ((n = ::recv(fd, buf, sizeof(buf), 0)) > 0) reply.append(buf, n);
  }
  ::close(fd);
  return reply;
}

class HttpListenerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    listener_.server().Post("/echo", [](const httplib::Request& req,
                                        httplib::Response& res) {
      res.set_content("got " + std::to_string(req.body.size()), "text/plain");
    });
    std::string error;
    ASSERT_TRUE(
        listener_.Start({*ParseIp("127.0.0.1"), 0}, "test-http", &error))
        << error;
  }
  uint16_t port() const { return listener_.bound().port; }

  HttpListener listener_{HttpLimits{.max_body_bytes = 1024}};
};

TEST_F(HttpListenerTest, RefusesALargeBodyFromItsHeadersAlone) {
  // 100 MB announced, none sent: the answer comes anyway.
  const std::string reply =
      Exchange(port(),
               "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: "
               "100000000\r\nConnection: close\r\n\r\n");
  EXPECT_THAT(reply, StartsWith("HTTP/1.1 413"));
  EXPECT_THAT(reply, HasSubstr("at most 1024 bytes"));
}

TEST_F(HttpListenerTest, RefusesAChunkedBody) {
  const std::string reply =
      Exchange(port(),
               "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: "
               "chunked\r\nConnection: close\r\n\r\n");
  EXPECT_THAT(reply, StartsWith("HTTP/1.1 413"));
}

TEST_F(HttpListenerTest, ASmallBodyReachesTheRoute) {
  const std::string reply =
      Exchange(port(),
               "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: "
               "5\r\nConnection: close\r\n\r\nhello");
  EXPECT_THAT(reply, StartsWith("HTTP/1.1 200"));
  EXPECT_THAT(reply, HasSubstr("got 5"));
}

}  // namespace
}  // namespace ax::runtime
