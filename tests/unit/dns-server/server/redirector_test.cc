// The redirector's pick as a function: Location joins the redirect URL with
// the original path and query, hosts are matched case-insensitively without
// port or trailing dot, 404 for other hosts, 503 with the reason when nothing
// can serve, the fallback CNAME's URL, and 400 for a target that is not a
// path.
#include "server/redirector.h"

#include <gtest/gtest.h>

#include "ops_world.h"

namespace ax::dns {
namespace {

using testing::OpsWorld;
using testing::OpsWorldAllDown;
using testing::Serve;

RedirectReply Redirect(const ServingState* state, const std::string& host,
                       const std::string& target, const std::string& client) {
  Rng rng(1);
  return DecideRedirect(
      {.host = host, .target = target, .client = *ParseIp(client)}, state,
      nullptr, 1'000'000, rng);
}

TEST(JoinUrlTest, OneSlashBetweenBaseAndPath) {
  EXPECT_EQ(JoinUrl("https://a.test", "/x/y?q=1"), "https://a.test/x/y?q=1");
  EXPECT_EQ(JoinUrl("https://a.test/", "/x"), "https://a.test/x");
  EXPECT_EQ(JoinUrl("https://a.test/base/", "/x?q"), "https://a.test/base/x?q");
  EXPECT_EQ(JoinUrl("https://a.test/base", "/"), "https://a.test/base/");
  EXPECT_EQ(JoinUrl("https://a.test", "?q=1"), "https://a.test/?q=1");
  EXPECT_EQ(JoinUrl("https://a.test", ""), "https://a.test/");
  // Absolute-form targets (sent to proxies) keep only path and query.
  EXPECT_EQ(JoinUrl("https://a.test", "http://www.example.test/p?q"),
            "https://a.test/p?q");
}

TEST(RedirectorTest, RedirectsToTheChosenNodeKeepingPathAndQuery) {
  const auto state = Serve(OpsWorld());
  // api for east: the canary c leads (100%), then a.
  RedirectReply r = Redirect(state.get(), "API.Example.Test.:8080",
                             "/download/file.bin?v=2&x=%20", "192.0.2.9");
  EXPECT_EQ(r.status, 302);
  EXPECT_EQ(r.location, "https://c.edge.test/download/file.bin?v=2&x=%20");
}

TEST(RedirectorTest, UnknownHostIs404) {
  const auto state = Serve(OpsWorld());
  const RedirectReply r =
      Redirect(state.get(), "other.example.test", "/", "192.0.2.9");
  EXPECT_EQ(r.status, 404);
  EXPECT_NE(r.reason.find("not a served domain"), std::string::npos);
  EXPECT_EQ(Redirect(state.get(), "", "/", "192.0.2.9").status, 404);
}

TEST(RedirectorTest, NoRedirectUrlIs503WithTheReason) {
  const auto state = Serve(OpsWorld());
  // www excludes a: east gets b, which has no redirectURL.
  const RedirectReply r =
      Redirect(state.get(), "www.example.test", "/", "192.0.2.9");
  EXPECT_EQ(r.status, 503);
  EXPECT_EQ(r.reason, "none of the chosen nodes (b) has a redirectURL");
}

// Only origin-form and absolute-form targets (issue 15): "@evil.example"
// glued to https://node would send the client to evil.example.
TEST(RedirectorTest, TargetsThatAreNotAPathAre400) {
  const auto state = Serve(OpsWorld());
  for (const char* target : {"@evil.example", "*", "evil.example/x", ""}) {
    const RedirectReply r =
        Redirect(state.get(), "api.example.test", target, "192.0.2.9");
    EXPECT_EQ(r.status, 400) << target;
    EXPECT_EQ(r.location, "") << target;
    EXPECT_NE(r.reason.find("must be a path"), std::string::npos) << r.reason;
  }
  const RedirectReply absolute = Redirect(state.get(), "api.example.test",
                                          "http://x.test/p?q", "192.0.2.9");
  EXPECT_EQ(absolute.status, 302);
  EXPECT_EQ(absolute.location, "https://c.edge.test/p?q");
}

TEST(RedirectorTest, NoSnapshotIs503) {
  EXPECT_EQ(Redirect(nullptr, "www.example.test", "/", "192.0.2.9").status,
            503);
}

TEST(RedirectorTest, DomainFallbackCnameOrNothing) {
  const auto down = Serve(OpsWorldAllDown());
  RedirectReply r =
      Redirect(down.get(), "www.example.test", "/a/b?c=d", "192.0.2.9");
  EXPECT_EQ(r.status, 302);
  EXPECT_EQ(r.location, "http://origin.example.test/a/b?c=d");
  r = Redirect(down.get(), "api.example.test", "/", "192.0.2.9");
  EXPECT_EQ(r.status, 503);
  EXPECT_NE(r.reason.find("addresses only"), std::string::npos) << r.reason;
}

}  // namespace
}  // namespace ax::dns
