// One watch request against a fake apiserver: events cut into small chunks
// arrive whole and in order, bookmarks only move the resourceVersion, 410
// ends it as kExpired whether it comes as the HTTP status or as an ERROR
// event, and Cancel ends a silent stream at once.
#include "ax/kube/watch.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "fake_apiserver.h"
#include "wait_for.h"

namespace ax::kube {
namespace {

using ::ax::kube::testing::FakeApiServer;
using ::ax::testing::WaitFor;
using nlohmann::json;
using std::chrono::milliseconds;
using std::chrono::steady_clock;

std::string Line(const char* type, const std::string& name, int rv) {
  return json{{"type", type},
              {"object",
               {{"kind", "ConfigMap"},
                {"metadata",
                 {{"name", name}, {"resourceVersion", std::to_string(rv)}}},
                {"data", {{"payload", std::string(300, 'x')}}}}}}
             .dump() +
         "\n";
}

// Serves `body` as a chunked watch stream, `piece` bytes per chunk with a
// pause between them, so the client sees events cut at many places.
void ServeStream(FakeApiServer& fake, const std::string& body, size_t piece,
                 std::string* query = nullptr) {
  fake.server().Get(".*", [body, piece, query](const httplib::Request& req,
                                               httplib::Response& res) {
    if (query != nullptr) *query = req.target.substr(req.target.find('?') + 1);
    res.set_chunked_content_provider(
        "application/json",
        [body, piece](size_t offset, httplib::DataSink& sink) {
          if (offset >= body.size()) {
            sink.done();
            return true;
          }
          const size_t n = std::min(piece, body.size() - offset);
          std::this_thread::sleep_for(milliseconds(1));  // on purpose: a pause
          return sink.write(body.data() + offset, n);
        });
  });
  fake.Start();
}

struct Collected {
  std::vector<std::string> seen;  // "TYPE name"
  WatchHandler handler() {
    return [this](const WatchEvent& event) {
      static const char* kNames[] = {"ADDED", "MODIFIED", "DELETED", "BOOKMARK",
                                     "ERROR"};
      seen.push_back(std::string(kNames[static_cast<int>(event.type)]) + " " +
                     event.object["metadata"]["name"].get<std::string>());
    };
  }
};

TEST(WatchTest, EventsCutIntoSmallChunksArriveWholeAndInOrder) {
  const std::string body =
      Line("ADDED", "a", 11) + Line("MODIFIED", "a", 12) +
      R"({"type":"BOOKMARK","object":{"kind":"ConfigMap","metadata":{"resourceVersion":"15"}}})"
      "\n" +
      Line("DELETED", "a", 16) +
      R"({"type":"BOOKMARK","object":{"kind":"ConfigMap","metadata":{"resourceVersion":"20"}}})"
      "\n";
  for (const size_t piece : {size_t{7}, size_t{64}, size_t{333}}) {
    FakeApiServer fake;
    std::string query;
    ServeStream(fake, body, piece, &query);
    auto client = fake.NewClient();
    Collected collected;
    WatchRequest request;
    request.resource_version = "10";
    request.timeout_seconds = 321;
    const WatchOutcome outcome =
        RunWatch(*client, ConfigMaps().In("ns"), request, collected.handler());
    EXPECT_EQ(outcome.end, WatchEnd::kClosed) << outcome.error.ToString();
    EXPECT_EQ(collected.seen,
              (std::vector<std::string>{"ADDED a", "MODIFIED a", "DELETED a"}))
        << "pieces of " << piece;
    EXPECT_EQ(outcome.events, 3u);
    EXPECT_EQ(outcome.resource_version, "20");  // the last bookmark
    EXPECT_EQ(query,
              "watch=1&resourceVersion=10&allowWatchBookmarks=true&"
              "timeoutSeconds=321");
  }
}

TEST(WatchTest, GoneAsAnErrorEventEndsAsExpired) {
  FakeApiServer fake;
  ServeStream(
      fake,
      Line("ADDED", "a", 11) +
          R"({"type":"ERROR","object":{"kind":"Status","status":"Failure",)"
          R"json("message":"too old resource version: 1 (208)",)json"
          R"("reason":"Expired","code":410}})"
          "\n" +
          Line("ADDED", "never", 12),
      4096);
  Collected collected;
  const WatchOutcome outcome = RunWatch(*fake.NewClient(), ConfigMaps(),
                                        WatchRequest{"1"}, collected.handler());
  EXPECT_EQ(outcome.end, WatchEnd::kExpired);
  EXPECT_EQ(outcome.error.reason, "Expired");
  EXPECT_EQ(outcome.error.http_status, 410);
  EXPECT_EQ(collected.seen, std::vector<std::string>{"ADDED a"});
  EXPECT_EQ(outcome.resource_version, "11");
}

TEST(WatchTest, GoneAsTheHttpStatusEndsAsExpired) {
  FakeApiServer fake;
  fake.server().Get(".*", [](const httplib::Request&, httplib::Response& res) {
    res.status = 410;
    res.set_content(
        R"({"kind":"Status","reason":"Gone","code":410,"message":"gone"})",
        "application/json");
  });
  fake.Start();
  Collected collected;
  const WatchOutcome outcome = RunWatch(*fake.NewClient(), ConfigMaps(),
                                        WatchRequest{"1"}, collected.handler());
  EXPECT_EQ(outcome.end, WatchEnd::kExpired);
  EXPECT_EQ(outcome.error.message, "gone");
  EXPECT_EQ(outcome.resource_version, "1");
  EXPECT_TRUE(collected.seen.empty());
}

TEST(WatchTest, OtherErrorsFail) {
  FakeApiServer fake;
  ServeStream(
      fake,
      R"({"type":"ERROR","object":{"kind":"Status","reason":"InternalError","code":500}})"
      "\n",
      4096);
  Collected collected;
  WatchOutcome outcome = RunWatch(*fake.NewClient(), ConfigMaps(),
                                  WatchRequest{"5"}, collected.handler());
  EXPECT_EQ(outcome.end, WatchEnd::kFailed);
  EXPECT_EQ(outcome.error.http_status, 500);

  FakeApiServer garbled;
  ServeStream(garbled, "not json\n", 4096);
  outcome = RunWatch(*garbled.NewClient(), ConfigMaps(), WatchRequest{"5"},
                     collected.handler());
  EXPECT_EQ(outcome.end, WatchEnd::kFailed);
  EXPECT_EQ(outcome.error.reason, kReasonBadResponse);

  FakeApiServer forbidden;
  forbidden.server().Get(
      ".*", [](const httplib::Request&, httplib::Response& res) {
        res.status = 403;
        res.set_content(R"({"kind":"Status","reason":"Forbidden","code":403})",
                        "application/json");
      });
  forbidden.Start();
  outcome = RunWatch(*forbidden.NewClient(), ConfigMaps(), WatchRequest{"5"},
                     collected.handler());
  EXPECT_EQ(outcome.end, WatchEnd::kFailed);
  EXPECT_TRUE(outcome.error.IsForbidden());
}

TEST(WatchTest, ParseWatchEventRejectsWhatIsNoEvent) {
  EXPECT_FALSE(ParseWatchEvent("[]").ok());
  EXPECT_FALSE(ParseWatchEvent(R"({"type":"ADDED"})").ok());
  EXPECT_FALSE(ParseWatchEvent(R"({"type":"RENAMED","object":{}})").ok());
  auto event = ParseWatchEvent(R"({"type":"DELETED","object":{"kind":"X"}})");
  ASSERT_TRUE(event.ok());
  EXPECT_EQ(event->type, WatchEventType::kDeleted);
  EXPECT_EQ(event->object["kind"], "X");
}

TEST(WatchTest, CancelEndsASilentStreamPromptly) {
  std::atomic<bool> done{false};  // outlives the server's handler threads
  FakeApiServer fake;
  fake.server().Get(".*", [&](const httplib::Request&, httplib::Response& res) {
    res.set_chunked_content_provider(
        "application/json", [&](size_t offset, httplib::DataSink& sink) {
          if (offset == 0) {
            const std::string first = Line("ADDED", "a", 2);
            return sink.write(first.data(), first.size());
          }
          // Then silence, as a watch without events, until released.
          while (!done) std::this_thread::sleep_for(milliseconds(10));
          return false;
        });
  });
  fake.Start();
  auto client = fake.NewClient();
  CancelToken cancel;
  WatchOutcome outcome;
  std::atomic<int> events{0};
  std::thread watcher([&] {
    WatchRequest request{"1"};
    request.cancel = &cancel;
    outcome = RunWatch(*client, ConfigMaps(), request,
                       [&](const WatchEvent&) { ++events; });
  });
  // Not ASSERT: the watcher must be canceled and joined either way.
  EXPECT_TRUE(WaitFor([&] { return events > 0; })) << "no first event";
  const auto start = steady_clock::now();
  cancel.Cancel();
  watcher.join();
  EXPECT_LT(steady_clock::now() - start, milliseconds(500));
  done = true;
  EXPECT_EQ(outcome.end, WatchEnd::kCanceled);
  EXPECT_EQ(outcome.resource_version, "2");
}

}  // namespace
}  // namespace ax::kube
