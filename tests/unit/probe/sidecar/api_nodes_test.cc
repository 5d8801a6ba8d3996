// ApiNodeSource over a fake apiserver (HTTP on loopback, list + streamed
// watch from a resourceVersion): Nodes added, modified and deleted change the
// probed set; status-only writes are no news; a broken Node is left out with
// an error naming it while the others are probed; with the API down the last
// set stays and the connection metric says so. The real apiserver is the
// kube integration suite's (test_probe_api_reports.py).
#include "sidecar/api_nodes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>
#include <utility>

#include "../../kube/fake_apiserver.h"
#include "ax/probe_targets.h"
#include "engine/world_targets.h"
#include "wait_for.h"

namespace ax::probe {
namespace {

using kube::testing::FakeApiServer;
using nlohmann::json;
using namespace std::chrono_literals;

constexpr char kNodesPath[] = "/apis/gslb.ax.io/v1alpha1/namespaces/ax/nodes";
constexpr char kConfigMapsPath[] = "/api/v1/namespaces/ax/configmaps";

json NodeObject(const std::string& name, int port) {
  return {{"apiVersion", "gslb.ax.io/v1alpha1"},
          {"kind", "Node"},
          {"metadata", {{"name", name}, {"namespace", "ax"}}},
          {"spec",
           {{"addresses", {"192.0.2.1"}},
            {"healthCheck",
             {{"protocol", "TCP"},
              {"port", port},
              {"timeout", "1s"},
              {"interval", "2s"}}}}}};
}

// The Node collection of namespace "ax" as the apiserver serves it: a list
// at the current resourceVersion, and watches that stream every later event.
// While down, every request gets 503 and open watches end.
class NodesApi {
 public:
  // `path`: the collection (the Nodes, or the ConfigMaps of a member).
  explicit NodesApi(std::string path = kNodesPath) : path_(std::move(path)) {}

  void Serve(httplib::Server& server) {
    server.Get(path_, [this](const httplib::Request& req,
                             httplib::Response& res) {
      std::lock_guard lock(mu_);
      if (down_) {
        res.status = 503;
        res.set_content(R"({"kind":"Status","reason":"ServiceUnavailable"})",
                        "application/json");
        return;
      }
      if (!req.has_param("watch")) {
        json items = json::array();
        for (const auto& [name, object] : objects_) items.push_back(object);
        res.set_content(
            json{{"metadata", {{"resourceVersion", std::to_string(rv_)}}},
                 {"items", items}}
                .dump(),
            "application/json");
        return;
      }
      const int from = std::stoi(req.get_param_value("resourceVersion"));
      res.set_chunked_content_provider(
          "application/json",
          [this, sent = from](size_t, httplib::DataSink& sink) mutable {
            std::unique_lock held(mu_);
            changed_.wait_for(held, 20ms);
            if (down_ || !sink.is_writable()) return false;
            std::string lines;
            for (const auto& [rv, event] : events_) {
              if (rv > sent) lines += event.dump() + "\n";
            }
            sent = rv_;
            return lines.empty() || sink.write(lines.data(), lines.size());
          });
    });
  }

  void Put(json object) {
    std::lock_guard lock(mu_);
    const std::string name = object["metadata"]["name"];
    const char* type = objects_.contains(name) ? "MODIFIED" : "ADDED";
    object["metadata"]["resourceVersion"] = std::to_string(++rv_);
    objects_[name] = object;
    events_.emplace_back(rv_, json{{"type", type}, {"object", object}});
    changed_.notify_all();
  }
  void Delete(const std::string& name) {
    std::lock_guard lock(mu_);
    json object = objects_.at(name);
    objects_.erase(name);
    object["metadata"]["resourceVersion"] = std::to_string(++rv_);
    events_.emplace_back(rv_, json{{"type", "DELETED"}, {"object", object}});
    changed_.notify_all();
  }
  void SetDown(bool down) {
    std::lock_guard lock(mu_);
    down_ = down;
    changed_.notify_all();
  }

 private:
  const std::string path_;
  std::mutex mu_;
  std::condition_variable changed_;
  std::map<std::string, json> objects_;
  std::vector<std::pair<int, json>> events_;
  int rv_ = 1;
  bool down_ = false;
};

// What the sidecar would probe after each hand-over: node -> port.
class Received {
 public:
  void Take(const GatheredWorld& gathered) {
    std::map<std::string, int> probed;
    for (const ProbeTarget& t :
         ProbeTargetsForWorld(gathered.world, "").targets) {
      probed[t.node] = t.check.port;
    }
    std::lock_guard lock(mu_);
    sets_.push_back(std::move(probed));
    last_invalid_ = gathered.invalid;
  }
  size_t count() {
    std::lock_guard lock(mu_);
    return sets_.size();
  }
  std::map<std::string, int> last() {
    std::lock_guard lock(mu_);
    return sets_.empty() ? std::map<std::string, int>{} : sets_.back();
  }
  std::map<std::string, std::vector<ManifestError>> invalid() {
    std::lock_guard lock(mu_);
    return last_invalid_;
  }

 private:
  std::mutex mu_;
  std::vector<std::map<std::string, int>> sets_;
  std::map<std::string, std::vector<ManifestError>> last_invalid_;
};

bool Eventually(const std::function<bool()>& done) {
  return ::ax::testing::WaitFor(done, 10s);
}

struct Fixture {
  // `configmap` not empty: the member's probe-targets ConfigMap of that name.
  explicit Fixture(std::string configmap = {})
      : api(configmap.empty() ? kNodesPath : kConfigMapsPath) {
    api.Serve(fake.server());
    fake.Start();
    client = fake.NewClient();
    kube::ReflectorOptions reflector;
    reflector.backoff = {.initial = 10ms, .max = 50ms};
    reflector.random = kube::SeededRandom(1);
    const kube::Resource collection =
        configmap.empty()
            ? kube::Resource{"gslb.ax.io", "v1alpha1", "nodes", "ax"}
            : kube::ConfigMaps().In("ax");
    source = std::make_unique<ApiNodeSource>(
        kube::NewListerWatcher(*client, collection), "ax", 20ms,
        [this](const GatheredWorld& g) { received.Take(g); },
        std::move(reflector), configmap);
  }
  ~Fixture() { source->Stop(); }

  double Metric(const std::string& name) {
    for (const auto& family : source->Families()) {
      if (family.name != name) continue;
      const auto& m = family.metric.at(0);
      return family.type == prometheus::MetricType::Counter ? m.counter.value
                                                            : m.gauge.value;
    }
    ADD_FAILURE() << "no metric " << name;
    return -1;
  }

  NodesApi api;
  FakeApiServer fake;
  std::unique_ptr<kube::Client> client;
  Received received;
  std::unique_ptr<ApiNodeSource> source;
};

using Probed = std::map<std::string, int>;

TEST(ApiNodeSourceTest, AddedModifiedDeletedChangeTheProbedSet) {
  Fixture f;
  f.api.Put(NodeObject("a", 80));
  f.api.Put(NodeObject("b", 81));
  f.source->Start();
  ASSERT_TRUE(Eventually([&] {
    return f.received.last() == Probed{{"a", 80}, {"b", 81}};
  }));
  EXPECT_EQ(f.received.count(), 1u);  // the debounce merged the first list
  EXPECT_EQ(f.Metric("ax_probe_nodes_source_connected"), 1);

  f.api.Put(NodeObject("c", 82));
  ASSERT_TRUE(Eventually([&] { return f.received.last().contains("c"); }));
  json moved = NodeObject("a", 8080);
  f.api.Put(moved);
  ASSERT_TRUE(Eventually([&] { return f.received.last().at("a") == 8080; }));
  f.api.Delete("b");
  ASSERT_TRUE(Eventually([&] {
    return f.received.last() == Probed{{"a", 8080}, {"c", 82}};
  }));

  // A status write (the operator's verdict) changes nothing to probe.
  const size_t before = f.received.count();
  moved["status"] = {{"health", "Healthy"}};
  f.api.Put(moved);
  f.api.Put(NodeObject("d", 83));
  ASSERT_TRUE(Eventually([&] { return f.received.last().contains("d"); }));
  EXPECT_EQ(f.received.count(), before + 1);
}

TEST(ApiNodeSourceTest, ABrokenNodeIsLeftOutByNameAndTheOthersProbed) {
  Fixture f;
  f.api.Put(NodeObject("good", 80));
  json bad = NodeObject("bad", 70000);
  f.api.Put(bad);
  f.source->Start();
  ASSERT_TRUE(Eventually([&] { return f.received.count() == 1; }));
  EXPECT_EQ(f.received.last(), (Probed{{"good", 80}}));
  const auto invalid = f.received.invalid();
  ASSERT_TRUE(invalid.contains("Node/bad"));
  const ManifestError& e = invalid.at("Node/bad").at(0);
  EXPECT_EQ(e.field, "spec.healthCheck.port");
  EXPECT_NE(e.message.find("70000"), std::string::npos) << e.message;
  EXPECT_EQ(f.source->rejected(), 1u);
  EXPECT_EQ(f.Metric("ax_probe_nodes_source_rejected"), 1);

  f.api.Put(NodeObject("bad", 90));  // fixed
  ASSERT_TRUE(Eventually([&] { return f.received.last().contains("bad"); }));
  EXPECT_EQ(f.source->rejected(), 0u);
  EXPECT_TRUE(f.received.invalid().empty());
}

TEST(ApiNodeSourceTest, WithTheApiDownTheLastSetStays) {
  Fixture f;
  f.api.Put(NodeObject("a", 80));
  f.source->Start();
  ASSERT_TRUE(Eventually([&] { return f.received.count() == 1; }));

  f.api.SetDown(true);
  ASSERT_TRUE(Eventually(
      [&] { return f.Metric("ax_probe_nodes_source_connected") == 0; }));
  ASSERT_TRUE(Eventually(
      [&] { return f.Metric("ax_probe_nodes_source_errors_total") >= 2; }));
  EXPECT_EQ(f.received.count(), 1u);  // nothing handed on: "a" is probed
  EXPECT_EQ(f.received.last(), (Probed{{"a", 80}}));

  f.api.Put(NodeObject("b", 81));  // while down: seen once the API is back
  f.api.SetDown(false);
  ASSERT_TRUE(Eventually([&] {
    return f.received.last() == Probed{{"a", 80}, {"b", 81}};
  }));
  EXPECT_EQ(f.Metric("ax_probe_nodes_source_connected"), 1);
}

}  // namespace
}  // namespace ax::probe

namespace ax::probe {
namespace {

json ProbeTargetsMap(const std::vector<json>& nodes) {
  json cm = MakeProbeTargetsConfigMap(nodes, "rt");
  cm["metadata"]["namespace"] = "ax";
  return cm;
}

TEST(ApiNodeSourceTest, AMembersNodesComeFromTheProbeTargetsConfigMap) {
  Fixture f("rt-nodes");
  f.api.Put(ProbeTargetsMap({NodeObject("a", 80), NodeObject("b", 81)}));
  f.source->Start();
  ASSERT_TRUE(Eventually([&] {
    return f.received.last() == Probed{{"a", 80}, {"b", 81}};
  }));
  f.api.Put(ProbeTargetsMap({NodeObject("a", 8080)}));
  ASSERT_TRUE(Eventually([&] {
    return f.received.last() == Probed{{"a", 8080}};
  }));
  // An unreadable map keeps the last set probed; a good one is taken again.
  const size_t before = f.received.count();
  json broken = ProbeTargetsMap({});
  broken["data"][kProbeTargetsKey] = "[not a list";
  f.api.Put(broken);
  f.api.Put(ProbeTargetsMap({NodeObject("c", 82)}));
  ASSERT_TRUE(Eventually([&] {
    return f.received.last() == Probed{{"c", 82}};
  }));
  EXPECT_EQ(f.received.count(), before + 1);
}

}  // namespace
}  // namespace ax::probe
