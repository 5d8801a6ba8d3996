// The pure pieces of the HTTP check: request bytes, the incremental response
// parser (fed in every possible split), the status/body judgement and the
// load JSON.
#include <gtest/gtest.h>

#include <string>

#include "backends.h"
#include "engine/http_request.h"
#include "engine/http_response_parser.h"
#include "engine/verdict.h"

namespace ax::probe {
namespace {

using State = HttpResponseParser::State;

// Feeds `bytes` split at every position and checks all splits agree.
State ParseSplit(const std::string& bytes, size_t cap, std::string* body,
                 int* status, bool eof = false) {
  State first_state = State::kIncomplete;
  for (size_t split = 0; split <= bytes.size(); ++split) {
    HttpResponseParser p(cap);
    p.Feed(std::string_view(bytes).substr(0, split));
    State s = p.Feed(std::string_view(bytes).substr(split));
    if (eof) s = p.FinishAtEof();
    if (split == 0) {
      first_state = s;
      *body = p.body();
      *status = p.status_code();
    } else {
      EXPECT_EQ(s, first_state) << "split at " << split;
      EXPECT_EQ(p.body(), *body) << "split at " << split;
    }
  }
  return first_state;
}

TEST(HttpRequestTest, GetWithHostTokenAndConnectionClose) {
  ProbeTarget t = testing::MakeTarget("a", ProbeProtocol::kHttp, 8080, "ready");
  t.token = "tok";
  std::string error;
  const auto req = BuildRequest(t, kDefaultTokenHeader, &error);
  ASSERT_TRUE(req) << error;
  EXPECT_EQ(*req,
            "GET /ready HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n"
            "User-Agent: ax-probe\r\nAccept: */*\r\nConnection: close\r\n"
            "X-Ax-Probe-Token: tok\r\n\r\n");
}

TEST(HttpRequestTest, HostHeaderDefaults) {
  ProbeTarget t = testing::MakeTarget("a", ProbeProtocol::kHttps, 0);
  t.address = *ParseIp("2001:db8::1");
  EXPECT_EQ(HostHeader(t), "[2001:db8::1]");
  t.check.port = 8443;
  EXPECT_EQ(HostHeader(t), "[2001:db8::1]:8443");
  t.check.host = "edge.test";
  t.check.protocol = ProbeProtocol::kHttp;
  t.check.port = 80;
  EXPECT_EQ(HostHeader(t), "edge.test");
}

TEST(HttpRequestTest, RefusesHeaderInjection) {
  ProbeTarget t = testing::MakeTarget("a", ProbeProtocol::kHttp, 80);
  t.token = "x\r\nHost: evil";
  std::string error;
  EXPECT_FALSE(BuildRequest(t, kDefaultTokenHeader, &error));
  EXPECT_EQ(error.find("evil"), std::string::npos);  // the value stays secret
  t.token.clear();
  t.check.path = "/a b";
  EXPECT_FALSE(BuildRequest(t, kDefaultTokenHeader, &error));
}

TEST(HttpResponseParserTest, ContentLength) {
  std::string body;
  int status = 0;
  EXPECT_EQ(ParseSplit("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n"
                       "X-A: b\r\n\r\nhello",
                       1024, &body, &status),
            State::kComplete);
  EXPECT_EQ(status, 200);
  EXPECT_EQ(body, "hello");
}

TEST(HttpResponseParserTest, Chunked) {
  std::string body;
  int status = 0;
  EXPECT_EQ(ParseSplit("HTTP/1.1 503 Busy\r\nTransfer-Encoding: chunked\r\n\r\n"
                       "4;ext=1\r\nbusy\r\n0A\r\n, retry 10\r\n0\r\n"
                       "Trailer: x\r\n\r\n",
                       1024, &body, &status),
            State::kComplete);
  EXPECT_EQ(status, 503);
  EXPECT_EQ(body, "busy, retry 10");
}

TEST(HttpResponseParserTest, CloseDelimitedNeedsEof) {
  std::string body;
  int status = 0;
  const std::string bytes = "HTTP/1.0 200 OK\r\n\r\nuntil close";
  EXPECT_EQ(ParseSplit(bytes, 1024, &body, &status), State::kIncomplete);
  EXPECT_EQ(ParseSplit(bytes, 1024, &body, &status, /*eof=*/true),
            State::kComplete);
  EXPECT_EQ(body, "until close");
}

TEST(HttpResponseParserTest, NoBodyStatusesAndInterimResponses) {
  std::string body;
  int status = 0;
  EXPECT_EQ(ParseSplit("HTTP/1.1 204 No Content\r\n\r\n", 64, &body, &status),
            State::kComplete);
  EXPECT_EQ(status, 204);
  EXPECT_EQ(ParseSplit("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n"
                       "Content-Length: 2\r\n\r\nok",
                       64, &body, &status),
            State::kComplete);
  EXPECT_EQ(status, 200);
  EXPECT_EQ(body, "ok");
}

TEST(HttpResponseParserTest, CapsTheBodyAndStopsEarly) {
  HttpResponseParser p(4);
  EXPECT_EQ(p.Feed("HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\n12345"),
            State::kComplete);
  EXPECT_EQ(p.body(), "1234");
  EXPECT_TRUE(p.body_truncated());
}

TEST(HttpResponseParserTest, Errors) {
  for (const char* bad :
       {"SSH-2.0-OpenSSH\r\n\r\n", "HTTP/1.1 2x0 OK\r\n\r\n",
        "HTTP/1.1 200 OK\r\nno colon\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"}) {
    HttpResponseParser p(64);
    EXPECT_EQ(p.Feed(bad), State::kError) << bad;
    EXPECT_FALSE(p.error().empty());
  }
  HttpResponseParser p(64);
  EXPECT_EQ(p.FinishAtEof(), State::kError);
  HttpResponseParser huge(64);
  EXPECT_EQ(huge.Feed("HTTP/1.1 200 OK\r\nX: " + std::string(20000, 'a')),
            State::kError);
}

// What a hostile endpoint could stretch without end (issue 15): trailer lines
// and interim 1xx responses are bounded, so the probe stops reading.
TEST(HttpResponseParserTest, EndlessTrailersAndInterimResponsesAreRefused) {
  HttpResponseParser trailers(64);
  EXPECT_EQ(trailers.Feed("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n"
                          "\r\n2\r\nok\r\n0\r\n"),
            State::kIncomplete);
  State s = State::kIncomplete;
  for (int i = 0; i < 2000 && s == State::kIncomplete; ++i) {
    s = trailers.Feed("X-Trailer: 0123456789\r\n");
  }
  EXPECT_EQ(s, State::kError);
  EXPECT_EQ(trailers.error(), "trailers too large");

  std::string interim;
  for (int i = 0; i < HttpResponseParser::kMaxInterimResponses; ++i) {
    interim += "HTTP/1.1 100 Continue\r\n\r\n";
  }
  std::string body;
  int status = 0;
  EXPECT_EQ(ParseSplit(interim + "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
                       64, &body, &status),
            State::kComplete);
  HttpResponseParser endless(64);
  EXPECT_EQ(endless.Feed(interim + "HTTP/1.1 100 Continue\r\n\r\n"),
            State::kError);
  EXPECT_EQ(endless.error(), "too many interim 1xx responses");

  // Chunk extensions carry no body: past 8 x (body cap + header cap) on the
  // wire the response is refused.
  HttpResponseParser framing(64);
  s = framing.Feed("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
  const std::string chunk = "1;" + std::string(4000, 'e') + "\r\nx\r\n";
  int chunks = 0;
  while (s == State::kIncomplete && chunks < 1000) {
    s = framing.Feed(chunk);
    ++chunks;
  }
  EXPECT_EQ(s, State::kError);
  EXPECT_EQ(framing.error(), "response too large on the wire");
  EXPECT_LT(chunks, 64);  // the 64-byte body cap was not what stopped it
}

TEST(HttpResponseParserTest, HeadersAreCaseInsensitive) {
  HttpResponseParser p(64);
  p.Feed(
      "HTTP/1.1 200 OK\r\nContent-TYPE:  application/json \r\n"
      "content-length: 0\r\n\r\n");
  EXPECT_EQ(p.state(), State::kComplete);
  EXPECT_EQ(p.Header("content-type"), "application/json");
}

TEST(VerdictTest, StatusListAndBodyMatch) {
  HealthCheck check;
  EXPECT_EQ(JudgeResponse(check, 200, "", false).error, ProbeError::kNone);
  EXPECT_EQ(JudgeResponse(check, 204, "", false).error, ProbeError::kStatus);
  check.expect_status.clear();  // any 2xx
  EXPECT_EQ(JudgeResponse(check, 204, "", false).error, ProbeError::kNone);
  EXPECT_EQ(JudgeResponse(check, 301, "", false).error, ProbeError::kStatus);
  check.body_match = "ready";
  EXPECT_EQ(JudgeResponse(check, 200, "all ready", false).error,
            ProbeError::kNone);
  const Verdict v = JudgeResponse(check, 200, "starting", true);
  EXPECT_EQ(v.error, ProbeError::kBody);
  EXPECT_NE(v.detail.find("first 8 bytes"), std::string::npos);
  // Status is judged before the body.
  EXPECT_EQ(JudgeResponse(check, 500, "ready", false).error,
            ProbeError::kStatus);
}

TEST(VerdictTest, LoadFromJson) {
  auto load =
      ParseSelfReport(R"( {"bandwidth_mbps": 100, "connections": 5} )").load;
  ASSERT_TRUE(load);
  EXPECT_DOUBLE_EQ(load->bandwidth_mbps, 100);
  EXPECT_DOUBLE_EQ(load->connections, 5);
  load = ParseSelfReport(R"({"bandwidthMbps": 2.5})").load;
  ASSERT_TRUE(load);
  EXPECT_DOUBLE_EQ(load->bandwidth_mbps, 2.5);
  EXPECT_DOUBLE_EQ(load->connections, 0);
  EXPECT_FALSE(
      ParseSelfReport(R"({"connections": -3, "bandwidth_mbps": "fast"})").load);
  for (const char* body :
       {"OK", "{not json", "[1, 2]", R"({"status": "ok"})", ""}) {
    const SelfReport r = ParseSelfReport(body);
    EXPECT_FALSE(r.load) << body;
    EXPECT_FALSE(r.error_rate) << body;
  }
}

TEST(VerdictTest, ErrorRateFromJson) {
  SelfReport r = ParseSelfReport(R"({"errorRate": 0.003})");
  EXPECT_FALSE(r.load);  // an error rate alone is no load report
  ASSERT_TRUE(r.error_rate);
  EXPECT_DOUBLE_EQ(*r.error_rate, 0.003);
  r = ParseSelfReport(R"({"connections": 10, "error_rate": 0})");
  ASSERT_TRUE(r.load);
  ASSERT_TRUE(r.error_rate);
  EXPECT_DOUBLE_EQ(*r.error_rate, 0);
  // A percentage, a negative or a string is not a ratio.
  for (const char* body : {R"({"errorRate": 2.5})", R"({"errorRate": -0.1})",
                           R"({"errorRate": "0.1"})"}) {
    EXPECT_FALSE(ParseSelfReport(body).error_rate) << body;
  }
}

}  // namespace
}  // namespace ax::probe
