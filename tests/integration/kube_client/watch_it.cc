// Watches and informers against a real kube-apiserver: create/update/delete
// in order, events far bigger than one read (so always cut into chunks), the
// apiserver's 410 for a resourceVersion older than its watch cache, and an
// informer that relists after it without losing the write made in between.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

#include "ax/kube/informer.h"
#include "ax/kube/reflector.h"
#include "kube_it_env.h"

namespace ax::kube::it {
namespace {

using nlohmann::json;

// Runs watches of the objects labelled `selector` on a thread, resuming
// after the server ends one, collecting events until destroyed.
class WatchRecorder {
 public:
  WatchRecorder(Client& client, const Resource& collection,
                const std::string& rv, const std::string& selector) {
    thread_ = std::thread([this, &client, collection, rv, selector] {
      WatchRequest request;
      request.resource_version = rv;
      request.label_selector = selector;
      request.cancel = &cancel_;
      while (!cancel_.canceled()) {
        const WatchOutcome outcome =
            RunWatch(client, collection, request, [this](const WatchEvent& e) {
              std::lock_guard lock(mu_);
              events_.push_back(e);
            });
        request.resource_version = outcome.resource_version;
        if (outcome.end != WatchEnd::kClosed) break;
      }
    });
  }
  ~WatchRecorder() {
    cancel_.Cancel();
    thread_.join();
  }

  std::vector<WatchEvent> events() {
    std::lock_guard lock(mu_);
    return events_;
  }

 private:
  CancelToken cancel_;
  std::mutex mu_;
  std::vector<WatchEvent> events_;
  std::thread thread_;
};

std::string Describe(const WatchEvent& e) {
  static const char* kTypes[] = {"ADDED", "MODIFIED", "DELETED", "BOOKMARK",
                                 "ERROR"};
  return std::string(kTypes[static_cast<int>(e.type)]) + " " +
         e.object["metadata"]["name"].get<std::string>();
}

TEST(WatchIt, SeesCreateUpdateDeleteInOrder) {
  auto client = AdminClient();
  const Resource config_maps = ConfigMaps().In(Namespace());
  ListOptions ordered;
  ordered.label_selector = "it=order";
  auto list = client->List(config_maps, ordered);
  ASSERT_TRUE(list.ok()) << list.error().ToString();
  WatchRecorder recorder(*client, config_maps, list->resource_version,
                         "it=order");

  const json labels = {{"it", "order"}};
  ASSERT_TRUE(
      client->Create(config_maps, ConfigMap("w1", {{"v", "1"}}, labels)).ok());
  ASSERT_TRUE(client
                  ->Update(config_maps.Named("w1"),
                           ConfigMap("w1", {{"v", "2"}}, labels))
                  .ok());
  ASSERT_TRUE(client->Create(config_maps, ConfigMap("w2", {}, labels)).ok());
  ASSERT_TRUE(client->Delete(config_maps.Named("w1")).ok());

  std::vector<std::string> seen;
  ASSERT_TRUE(Eventually([&] {
    seen.clear();
    for (const WatchEvent& e : recorder.events()) seen.push_back(Describe(e));
    return seen.size() >= 4;
  })) << seen.size();
  EXPECT_EQ(seen, (std::vector<std::string>{"ADDED w1", "MODIFIED w1",
                                            "ADDED w2", "DELETED w1"}));
  EXPECT_EQ(recorder.events()[1].object["data"]["v"], "2");
}

TEST(WatchIt, EventsBiggerThanAnyReadArriveWhole) {
  auto client = AdminClient();
  const Resource config_maps = ConfigMaps().In(Namespace());
  auto list = client->List(config_maps, {"it=big", "", 500, {}});
  ASSERT_TRUE(list.ok());
  WatchRecorder recorder(*client, config_maps, list->resource_version,
                         "it=big");
  // ~600 KiB of varied text: dozens of TLS records, hundreds of 4 KiB reads.
  std::string payload;
  for (int i = 0; payload.size() < size_t{600} << 10; ++i) {
    payload += "line " + std::to_string(i) + " \xc3\xa9\"\\\n";
  }
  ASSERT_TRUE(client
                  ->Create(config_maps, ConfigMap("big", {{"payload", payload}},
                                                  {{"it", "big"}}))
                  .ok());
  ASSERT_TRUE(Eventually([&] { return recorder.events().size() == 1; }));
  EXPECT_EQ(recorder.events()[0].object["data"]["payload"], payload);
}

TEST(WatchIt, AResourceVersionOlderThanTheWatchCacheIsGone) {
  auto client = AdminClient();
  const WatchOutcome outcome =
      WatchFromResourceVersionOne(*client, ProbeReports().In(Namespace()));
  EXPECT_EQ(outcome.end, WatchEnd::kExpired) << outcome.error.ToString();
  EXPECT_EQ(outcome.error.http_status, 410);
  EXPECT_EQ(outcome.error.reason, "Expired");
  EXPECT_THAT(outcome.error.message,
              ::testing::HasSubstr("too old resource version: 1"));
  EXPECT_EQ(outcome.events, 0u);
}

// The real lister-watcher, except that its first watch starts from
// resourceVersion 1 (older than the watch cache: 410) after a write the
// informer's list did not see; only a relist can find that write.
class FirstWatchFromTheStart : public ListerWatcher {
 public:
  FirstWatchFromTheStart(Client& client, const Resource& collection)
      : client_(client),
        collection_(collection),
        inner_(NewListerWatcher(client, collection, {"it=gone", "", 500})) {}

  Result<ObjectList> List(CancelToken* cancel) override {
    return inner_->List(cancel);
  }

  WatchOutcome Watch(const WatchRequest& request,
                     const WatchHandler& on_event) override {
    if (watches_++ > 0) return inner_->Watch(request, on_event);
    auto gap =
        client_.Create(collection_, ProbeReport("gap", {{"it", "gone"}}));
    EXPECT_TRUE(gap.ok()) << gap.error().ToString();
    WatchRequest stale = request;
    stale.resource_version = "1";
    first_outcome = inner_->Watch(stale, on_event);
    return first_outcome;
  }

  WatchOutcome first_outcome;

 private:
  Client& client_;
  const Resource collection_;
  std::unique_ptr<ListerWatcher> inner_;
  std::atomic<int> watches_{0};
};

TEST(WatchIt, InformerRelistsAfterGoneWithoutLosingAWrite) {
  auto client = AdminClient();
  const Resource reports = ProbeReports().In(Namespace());
  // The watch cache is up (not 429 any more) and does not reach back to 1.
  ASSERT_EQ(WatchFromResourceVersionOne(*client, reports).end,
            WatchEnd::kExpired);
  ASSERT_TRUE(
      client->Create(reports, ProbeReport("before", {{"it", "gone"}})).ok());

  auto lister_watcher =
      std::make_unique<FirstWatchFromTheStart>(*client, reports);
  FirstWatchFromTheStart& lw = *lister_watcher;
  std::atomic<int> changes{0};
  std::vector<Error> errors;
  InformerOptions options;
  options.on_change = [&] { ++changes; };
  options.reflector.on_error = [&](const Error& e) { errors.push_back(e); };
  Informer informer(std::move(lister_watcher), std::move(options));
  informer.Start();
  ASSERT_TRUE(informer.WaitForSync(std::chrono::seconds(20)));

  // The relist brings "gap"; the watch after it sees what follows.
  ASSERT_TRUE(
      Eventually([&] { return informer.Get(Namespace(), "gap") != nullptr; }));
  ASSERT_TRUE(
      client->Create(reports, ProbeReport("after", {{"it", "gone"}})).ok());
  ASSERT_TRUE(client->Delete(reports.Named("before")).ok());
  ASSERT_TRUE(Eventually([&] {
    return informer.Get(Namespace(), "after") != nullptr &&
           informer.Get(Namespace(), "before") == nullptr;
  }));
  informer.Stop();

  EXPECT_EQ(lw.first_outcome.end, WatchEnd::kExpired);
  EXPECT_EQ(lw.first_outcome.error.http_status, 410);
  const ReflectorCounters counters = informer.counters();
  EXPECT_EQ(counters.lists, 2u);
  EXPECT_EQ(counters.relists, 1u);
  EXPECT_EQ(counters.watches, 2u);
  EXPECT_EQ(counters.failures, 0u);
  ASSERT_EQ(errors.size(), 1u);  // the 410, reported
  EXPECT_TRUE(errors[0].IsGone());
  std::vector<std::string> names;
  for (const ObjectPtr& o : informer.List())
    names.push_back((*o)["metadata"]["name"]);
  EXPECT_EQ(names, (std::vector<std::string>{"after", "gap"}));
  EXPECT_GE(changes, 4);  // two lists, "after" added, "before" deleted
}

}  // namespace
}  // namespace ax::kube::it
