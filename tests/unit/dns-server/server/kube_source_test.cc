// KubeSource over a scripted API (a fake ListerWatcher): the first list
// loads, watch events swap versions, unchanged inputs are not reloaded, a
// corrupt ConfigMap is refused with the codec's error while the last good
// snapshot serves, and the connection state follows an outage (lost on the
// failed watch, restored by the probe list) and a 410 (relist, no loss). A
// member's confirmation stamp is read without reloading.
// The real apiserver is the kube integration suite's.
#include "server/kube_source.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <deque>
#include <mutex>

#include "ax/route_table_configmap.h"
#include "server_test_support.h"

namespace ax::dns {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;
using testing::MakeSnapshot;
using testing::WaitFor;

json ConfigMap(uint64_t version, int variant = 0) {
  const Snapshot s = MakeSnapshot(version, variant);
  json cm = MakeRouteTableConfigMap(
      EncodeRouteTablePayload(SerializeSnapshot(s), kDefaultGzipThresholdBytes),
      s.version, s.content_hash,
      {.name = "rt", .namespace_name = "ax", .route_table = "rt"});
  return cm;
}

// The API as the reflector sees it: List answers `objects` unless down;
// Watch delivers queued events until canceled, down or told to expire.
class FakeApi : public kube::ListerWatcher {
 public:
  kube::Result<kube::ObjectList> List(kube::CancelToken*) override {
    std::lock_guard lock(mu_);
    if (down_) return Refused();
    // As the apiserver: list items carry no kind or apiVersion.
    std::vector<json> items = objects_;
    for (json& item : items) {
      item.erase("kind");
      item.erase("apiVersion");
    }
    return kube::ObjectList{std::move(items), "1"};
  }

  kube::WatchOutcome Watch(const kube::WatchRequest& request,
                           const kube::WatchHandler& on_event) override {
    kube::WatchOutcome outcome;
    outcome.resource_version = request.resource_version;
    std::unique_lock lock(mu_);
    while (true) {
      // The reflector's cancel does not wake our condition: poll it.
      changed_.wait_for(lock, 5ms);
      if (request.cancel->canceled()) {
        outcome.end = kube::WatchEnd::kCanceled;
        return outcome;
      }
      if (down_) {
        outcome.end = kube::WatchEnd::kFailed;
        outcome.error = Refused().error();
        return outcome;
      }
      if (expire_) {
        expire_ = false;
        outcome.end = kube::WatchEnd::kExpired;
        outcome.error = {410, "Expired", "too old resource version"};
        return outcome;
      }
      while (!events_.empty()) {
        kube::WatchEvent event = std::move(events_.front());
        events_.pop_front();
        lock.unlock();
        on_event(event);
        ++outcome.events;
        lock.lock();
      }
    }
  }

  // Stores the object and sends it as a MODIFIED event.
  void Modify(json object) {
    std::lock_guard lock(mu_);
    objects_ = {object};
    events_.push_back({kube::WatchEventType::kModified, std::move(object)});
    changed_.notify_all();
  }
  void SetObjects(std::vector<json> objects) {
    std::lock_guard lock(mu_);
    objects_ = std::move(objects);
  }
  void SetDown(bool down) {
    std::lock_guard lock(mu_);
    down_ = down;
    changed_.notify_all();
  }
  void Expire() {
    std::lock_guard lock(mu_);
    expire_ = true;
    changed_.notify_all();
  }

 private:
  static kube::Result<kube::ObjectList> Refused() {
    return kube::Error{0, "Transport", "connection refused"};
  }

  std::mutex mu_;
  std::condition_variable changed_;
  std::vector<json> objects_;
  std::deque<kube::WatchEvent> events_;
  bool down_ = false;
  bool expire_ = false;
};

kube::ReflectorOptions Fast() {
  kube::ReflectorOptions options;
  options.backoff = {.initial = 10ms, .max = 50ms};
  options.random = kube::SeededRandom(1);
  return options;
}

uint64_t Served(const SnapshotStore& store) {
  const auto state = store.Current();
  return state ? state->snapshot().version : 0;
}

struct Fixture {
  // `config_map` null: the ConfigMap does not exist.
  explicit Fixture(const json& config_map) {
    auto api = std::make_unique<FakeApi>();
    fake = api.get();
    std::vector<json> objects;
    if (!config_map.is_null()) objects.push_back(config_map);
    fake->SetObjects(std::move(objects));
    source = std::make_unique<KubeSource>(
        std::move(api), KubeSourceOptions{.namespace_name = "ax", .name = "rt"},
        &store, Fast());
    source->Start();
  }
  SnapshotStore store{std::vector<ZoneConfig>{}};
  FakeApi* fake = nullptr;  // owned by source
  std::unique_ptr<KubeSource> source;
};

TEST(KubeSourceTest, LoadsFirstListThenEveryNewVersion) {
  Fixture f(ConfigMap(1));
  ASSERT_TRUE(WaitFor([&] { return Served(f.store) == 1; }));
  EXPECT_TRUE(f.source->status().connected);
  EXPECT_EQ(f.store.Status().history.back().source, "configmap:ax/rt");

  f.fake->Modify(ConfigMap(2, 1));
  ASSERT_TRUE(WaitFor([&] { return Served(f.store) == 2; }));
  // Only metadata changed: nothing to decode or load.
  json relabeled = ConfigMap(2, 1);
  relabeled["metadata"]["resourceVersion"] = "99";
  relabeled["metadata"]["labels"]["extra"] = "yes";
  f.fake->Modify(relabeled);
  f.fake->Modify(ConfigMap(3, 2));
  ASSERT_TRUE(WaitFor([&] { return Served(f.store) == 3; }));
  EXPECT_EQ(f.store.Status().loads, 3u);
  EXPECT_EQ(f.store.Status().errors, 0u);
}

TEST(KubeSourceTest, AConfirmationIsReadWithoutAReload) {
  Fixture f(ConfigMap(1));
  ASSERT_TRUE(WaitFor([&] { return Served(f.store) == 1; }));
  // The control plane's own cluster: no confirmation.
  EXPECT_EQ(f.source->confirmed_at_ms(), 0);
  // A member's copy: the operator stamps it at every heartbeat, nothing else
  // changes.
  for (const char* at : {"2026-12-04T18:00:00Z", "2026-12-04T18:00:30.500Z"}) {
    json stamped = ConfigMap(1);
    stamped["metadata"]["annotations"][kConfirmedAtAnnotation] = at;
    f.fake->Modify(stamped);
  }
  ASSERT_TRUE(
      WaitFor([&] { return f.source->confirmed_at_ms() == 1796407230500; }));
  EXPECT_EQ(f.store.Status().loads, 1u);
  // A broken stamp leaves the last good confirmation.
  json broken = ConfigMap(1);
  broken["metadata"]["annotations"][kConfirmedAtAnnotation] = "yesterday";
  f.fake->Modify(broken);
  f.fake->Modify(ConfigMap(2, 1));
  ASSERT_TRUE(WaitFor([&] { return Served(f.store) == 2; }));
  EXPECT_EQ(f.source->confirmed_at_ms(), 1796407230500);
}

TEST(KubeSourceTest, CorruptConfigMapKeepsTheLastGoodSnapshot) {
  Fixture f(ConfigMap(1));
  ASSERT_TRUE(WaitFor([&] { return Served(f.store) == 1; }));

  json bad_gzip = ConfigMap(2, 1);
  bad_gzip.erase("data");
  bad_gzip["binaryData"] = {
      {kRouteTableGzipKey, "bm90IGd6aXA="}};  // "not gzip"
  f.fake->Modify(bad_gzip);
  ASSERT_TRUE(WaitFor([&] { return f.store.Status().errors == 1; }));
  EXPECT_NE(f.store.Status().last_error.find("configmap:ax/rt: BadGzip"),
            std::string::npos)
      << f.store.Status().last_error;

  json wrong_hash = ConfigMap(2, 1);
  wrong_hash["metadata"]["annotations"][kContentHashAnnotation] =
      "fnv1a64:0000000000000000";
  f.fake->Modify(wrong_hash);
  ASSERT_TRUE(WaitFor([&] { return f.store.Status().errors == 2; }));
  EXPECT_NE(f.store.Status().last_error.find("HashMismatch"),
            std::string::npos);
  EXPECT_EQ(Served(f.store), 1u);

  f.fake->Modify(ConfigMap(2, 1));
  ASSERT_TRUE(WaitFor([&] { return Served(f.store) == 2; }));
}

TEST(KubeSourceTest, MissingConfigMapIsWhatReadinessWaitsFor) {
  Fixture f(nullptr);
  ASSERT_TRUE(WaitFor([&] { return f.store.Status().errors == 1; }));
  EXPECT_NE(f.store.Status().last_error.find("does not exist"),
            std::string::npos);
  f.fake->Modify(ConfigMap(1));
  ASSERT_TRUE(WaitFor([&] { return Served(f.store) == 1; }));
}

TEST(KubeSourceTest, OutageAndExpiryAreSurvived) {
  Fixture f(ConfigMap(1));
  ASSERT_TRUE(WaitFor([&] { return Served(f.store) == 1; }));

  f.fake->SetDown(true);
  // The link notices the loss inside the failed call, the reflector counts
  // the failure when the call returns: wait for both.
  ASSERT_TRUE(WaitFor([&] {
    const auto status = f.source->status();
    return !status.connected && status.failures > 0;
  }));
  EXPECT_EQ(Served(f.store), 1u);  // still serving

  f.fake->SetDown(false);
  ASSERT_TRUE(WaitFor([&] { return f.source->status().connected; }));

  // A version that only a relist sees: the watch expires instead.
  f.fake->SetObjects(std::vector<json>(1, ConfigMap(2, 1)));
  f.fake->Expire();
  ASSERT_TRUE(WaitFor([&] { return Served(f.store) == 2; }));
  EXPECT_EQ(f.source->status().relists, 1u);
  EXPECT_TRUE(f.source->status().connected);
}

}  // namespace
}  // namespace ax::dns
