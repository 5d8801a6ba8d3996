// The reflector loop on a scripted ListerWatcher (resume after a closed
// watch, relist after 410, back off after failures, counters), and the
// informer over a fake apiserver (cache, OnChange, HasSynced, prompt Stop).
#include "ax/kube/informer.h"

#include <gtest/gtest.h>

#include <atomic>
#include <deque>
#include <mutex>
#include <thread>

#include "fake_apiserver.h"
#include "wait_for.h"

namespace ax::kube {
namespace {

using ::ax::kube::testing::FakeApiServer;
using ::ax::testing::WaitFor;
using nlohmann::json;
using std::chrono::milliseconds;
using std::chrono::steady_clock;

json Object(const std::string& name, int rv) {
  return {{"metadata",
           {{"namespace", "ns"},
            {"name", name},
            {"resourceVersion", std::to_string(rv)}}}};
}

// Plays back scripted list and watch results; once the script runs out, a
// watch blocks until canceled.
class ScriptedListerWatcher : public ListerWatcher {
 public:
  struct WatchStep {
    std::vector<WatchEvent> events;
    WatchEnd end;
    std::string final_rv;
  };

  std::deque<Result<ObjectList>> lists;
  std::deque<WatchStep> watches;
  std::vector<std::string> watched_from;  // request resourceVersions
  std::vector<int> timeouts;

  Result<ObjectList> List(CancelToken*) override {
    std::lock_guard lock(mu_);
    if (lists.empty()) return Error{500, "InternalError", "no more lists"};
    auto next = std::move(lists.front());
    lists.pop_front();
    return next;
  }

  WatchOutcome Watch(const WatchRequest& request,
                     const WatchHandler& on_event) override {
    std::unique_lock lock(mu_);
    watched_from.push_back(request.resource_version);
    timeouts.push_back(request.timeout_seconds);
    if (watches.empty()) {
      lock.unlock();
      request.cancel->WaitFor(std::chrono::hours(1));
      return WatchOutcome{WatchEnd::kCanceled, request.resource_version, 0, {}};
    }
    WatchStep step = std::move(watches.front());
    watches.pop_front();
    lock.unlock();
    for (const WatchEvent& event : step.events) on_event(event);
    WatchOutcome outcome{step.end, step.final_rv, step.events.size(), {}};
    if (step.end == WatchEnd::kExpired)
      outcome.error = {410, "Expired", "too old"};
    if (step.end == WatchEnd::kFailed)
      outcome.error = {0, "Transport", "reset"};
    return outcome;
  }

  std::vector<std::string> WatchedFrom() {
    std::lock_guard lock(mu_);
    return watched_from;
  }

 private:
  std::mutex mu_;
};

InformerOptions FastOptions(std::function<void()> on_change = nullptr) {
  InformerOptions options;
  options.on_change = std::move(on_change);
  options.reflector.backoff = {milliseconds(1), milliseconds(4), 2.0, 0.0};
  options.reflector.random = SeededRandom(1);
  return options;
}

TEST(ReflectorTest, ResumesRelistsAndBacksOff) {
  auto script = std::make_unique<ScriptedListerWatcher>();
  ScriptedListerWatcher& lw = *script;
  lw.lists.emplace_back(ObjectList{{Object("a", 10)}, "10"});
  // A closed watch resumes from its last resourceVersion ...
  lw.watches.push_back(
      {{{WatchEventType::kAdded, Object("b", 11)}}, WatchEnd::kClosed, "11"});
  // ... so does a failed one, after a backoff ...
  lw.watches.push_back({{{WatchEventType::kModified, Object("b", 12)}},
                        WatchEnd::kFailed,
                        "12"});
  // ... but 410 relists. The failed list in between is retried.
  lw.watches.push_back({{}, WatchEnd::kExpired, "12"});
  lw.lists.emplace_back(Error{503, "ServiceUnavailable", "busy"});
  lw.lists.emplace_back(ObjectList{{Object("b", 13), Object("c", 14)}, "20"});

  std::atomic<int> changes{0};
  std::vector<Error> errors;
  InformerOptions options = FastOptions([&] { ++changes; });
  options.reflector.on_error = [&](const Error& e) { errors.push_back(e); };
  Informer informer(std::move(script), std::move(options));
  informer.Start();
  ASSERT_TRUE(WaitFor([&] { return lw.WatchedFrom().size() == 4; }));
  EXPECT_EQ(lw.WatchedFrom(),
            (std::vector<std::string>{"10", "11", "12", "20"}));
  informer.Stop();

  // The relist replaced the cache: "a" is gone without a DELETED event.
  std::vector<std::string> names;
  for (const ObjectPtr& o : informer.List())
    names.push_back((*o)["metadata"]["name"]);
  EXPECT_EQ(names, (std::vector<std::string>{"b", "c"}));
  EXPECT_EQ((*informer.Get("ns", "b"))["metadata"]["resourceVersion"], "13");

  const ReflectorCounters c = informer.counters();
  EXPECT_EQ(c.lists, 2u);  // the failed one does not count
  EXPECT_EQ(c.relists, 1u);
  EXPECT_EQ(c.watches, 4u);
  EXPECT_EQ(c.watch_restarts, 3u);
  EXPECT_EQ(c.failures, 2u);  // the failed watch and the failed list
  EXPECT_EQ(changes, 4);      // two lists, two events
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_TRUE(errors[1].IsGone());
  for (const int t : lw.timeouts) {
    EXPECT_GE(t, 300);
    EXPECT_LE(t, 600);
  }
}

TEST(ReflectorTest, RepeatedGoneAfterAFreshListBacksOff) {
  auto script = std::make_unique<ScriptedListerWatcher>();
  ScriptedListerWatcher& lw = *script;
  for (int i = 0; i < 3; ++i) {
    lw.lists.emplace_back(ObjectList{{}, "5"});
    lw.watches.push_back({{}, WatchEnd::kExpired, "5"});
  }
  lw.lists.emplace_back(ObjectList{{}, "6"});  // then a watch that holds
  InformerOptions options = FastOptions();
  options.reflector.backoff = {milliseconds(200), milliseconds(200), 2.0, 0.0};
  Informer informer(std::move(script), std::move(options));
  const auto start = steady_clock::now();
  informer.Start();
  ASSERT_TRUE(WaitFor([&] { return lw.WatchedFrom().size() == 4; }));
  // The first 410 relists at once, the next two after 200 ms each.
  EXPECT_GE(steady_clock::now() - start, milliseconds(400));
  EXPECT_EQ(informer.counters().relists, 3u);
}

// A sleeping lister-watcher whose watches all end at once, empty.
class InstantlyClosing : public ScriptedListerWatcher {
 public:
  WatchOutcome Watch(const WatchRequest& request,
                     const WatchHandler&) override {
    ++closed;
    return WatchOutcome{WatchEnd::kClosed, request.resource_version, 0, {}};
  }
  std::atomic<int> closed{0};
};

TEST(ReflectorTest, WatchesEndingAtOnceAreBackedOff) {
  auto script = std::make_unique<InstantlyClosing>();
  InstantlyClosing& lw = *script;
  lw.lists.emplace_back(ObjectList{{}, "5"});
  InformerOptions options = FastOptions();
  options.reflector.backoff = {milliseconds(100), milliseconds(100), 2.0, 0.0};
  Informer informer(std::move(script), std::move(options));
  const auto start = steady_clock::now();
  informer.Start();
  // One at once, then one per 100 ms backoff (no jitter): three within
  // 450 ms, and the third not before 200 ms, where a loop that does not back
  // off would have closed thousands.
  ASSERT_TRUE(WaitFor([&] { return lw.closed >= 3; }, milliseconds(450)));
  const auto third = steady_clock::now() - start;
  informer.Stop();
  EXPECT_GE(third, milliseconds(200));
  EXPECT_EQ(informer.counters().failures, static_cast<uint64_t>(lw.closed));
  EXPECT_EQ(informer.counters().relists, 0u);  // resumes, no relist
}

TEST(ReflectorTest, StopInterruptsABackoff) {
  auto script = std::make_unique<ScriptedListerWatcher>();  // lists fail
  InformerOptions options = FastOptions();
  options.reflector.backoff = {milliseconds(60000), milliseconds(60000), 2.0,
                               0.0};
  Informer informer(std::move(script), std::move(options));
  informer.Start();
  ASSERT_TRUE(WaitFor([&] { return informer.counters().failures == 1; }));
  const auto start = steady_clock::now();
  informer.Stop();
  EXPECT_LT(steady_clock::now() - start, milliseconds(500));
  EXPECT_FALSE(informer.HasSynced());
}

TEST(InformerTest, ListsWatchesAndStopsPromptlyOverHttp) {
  std::atomic<bool> release{false};  // outlives the server's handlers
  FakeApiServer fake;
  fake.server().Get(
      "/api/v1/namespaces/ns/configmaps",
      [&](const httplib::Request& req, httplib::Response& res) {
        if (!req.has_param("watch")) {
          res.set_content(json{{"metadata", {{"resourceVersion", "7"}}},
                               {"items", {Object("a", 5)}}}
                              .dump(),
                          "application/json");
          return;
        }
        res.set_chunked_content_provider(
            "application/json", [&](size_t offset, httplib::DataSink& sink) {
              if (offset == 0) {
                const std::string line =
                    json{{"type", "ADDED"}, {"object", Object("b", 8)}}.dump() +
                    "\n";
                return sink.write(line.data(), line.size());
              }
              // A watch with nothing more to say, blocked until released.
              while (!release) std::this_thread::sleep_for(milliseconds(10));
              return false;
            });
      });
  fake.Start();
  auto client = fake.NewClient();
  std::atomic<int> changes{0};
  Informer informer(*client, ConfigMaps().In("ns"), {},
                    FastOptions([&] { ++changes; }));
  EXPECT_FALSE(informer.HasSynced());
  informer.Start();
  ASSERT_TRUE(informer.WaitForSync(milliseconds(5000)));
  ASSERT_TRUE(WaitFor([&] { return informer.Get("ns", "b") != nullptr; }));
  EXPECT_NE(informer.Get("ns", "a"), nullptr);
  EXPECT_EQ(changes, 2);

  const auto start = steady_clock::now();
  informer.Stop();  // the watch is blocked in a read
  EXPECT_LT(steady_clock::now() - start, milliseconds(500));
  release = true;
  EXPECT_EQ(informer.counters().watches, 1u);
}

}  // namespace
}  // namespace ax::kube
