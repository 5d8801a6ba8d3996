// PlanApplier against a fake apiserver: the write order a plan demands
// (ConfigMap, kept versions, statuses, Events), the owner references on the
// ConfigMaps written, "already done" answers, a status conflict re-read and
// retried, a route-table conflict stopping the pass with what won recorded,
// status writes giving way to a newer plan and going on where they stopped,
// and no write at all without the lease.
#include "plan_applier.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <set>
#include <utility>
#include <vector>

#include "../../kube/fake_apiserver.h"

namespace ax::controller {
namespace {

using kube::testing::FakeApiServer;
using nlohmann::json;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr char kNs[] = "ax-system";
constexpr char kConflict[] =
    R"({"kind":"Status","reason":"Conflict","code":409,"message":"changed"})";

class FakeCluster {
 public:
  explicit FakeCluster(bool route_table_conflicts) {
    httplib::Server& s = api_.server();
    const std::string cms = "/api/v1/namespaces/ax-system/configmaps";
    s.Post(cms, [this](const httplib::Request& req, httplib::Response& res) {
      Seen(req);
      json cm = json::parse(req.body);
      if (cm["metadata"]["name"] == "ax-route-table-v3") {  // kept already
        res.status = 409;
        res.set_content(R"({"kind":"Status","reason":"AlreadyExists",
                            "code":409})",
                        "application/json");
        return;
      }
      cm["metadata"]["resourceVersion"] = "11";
      res.status = 201;
      res.set_content(cm.dump(), "application/json");
    });
    s.Put(cms + "/ax-route-table",
          [this, route_table_conflicts](const httplib::Request& req,
                                        httplib::Response& res) {
            Seen(req);
            if (route_table_conflicts) {
              res.status = 409;
              res.set_content(kConflict, "application/json");
              return;
            }
            res.set_content(req.body, "application/json");
          });
    s.Get(cms + "/ax-route-table",
          [this](const httplib::Request& req, httplib::Response& res) {
            Seen(req);
            res.set_content(Winner().dump(), "application/json");
          });
    s.Delete(cms + "/ax-route-table-v1",
             [this](const httplib::Request& req, httplib::Response& res) {
               Seen(req);  // deleted already
               res.status = 404;
               res.set_content(R"({"kind":"Status","reason":"NotFound",
                                   "code":404})",
                               "application/json");
             });
    const std::string node =
        "/apis/gslb.ax.io/v1alpha1/namespaces/ax-system/nodes/gz-01";
    s.Put(node + "/status",
          [this](const httplib::Request& req, httplib::Response& res) {
            Seen(req);
            json body = json::parse(req.body);
            // The first write carries the stale resourceVersion "5".
            if (body["metadata"]["resourceVersion"] == "5") {
              res.status = 409;
              res.set_content(kConflict, "application/json");
              return;
            }
            res.set_content(body.dump(), "application/json");
          });
    s.Get(node, [this](const httplib::Request& req, httplib::Response& res) {
      Seen(req);
      res.set_content(json{{"apiVersion", "gslb.ax.io/v1alpha1"},
                           {"kind", "Node"},
                           {"metadata",
                            {{"name", "gz-01"},
                             {"namespace", kNs},
                             {"resourceVersion", "6"}}},
                           {"spec", {{"weight", 100}}}}
                          .dump(),
                      "application/json");
    });
    s.Post("/api/v1/namespaces/ax-system/events",
           [this](const httplib::Request& req, httplib::Response& res) {
             Seen(req);
             res.status = 201;
             res.set_content(req.body, "application/json");
           });
    api_.Start();
    client_ = api_.NewClient();
  }

  static json Winner() {
    return {{"apiVersion", "v1"},
            {"kind", "ConfigMap"},
            {"metadata",
             {{"name", "ax-route-table"},
              {"namespace", kNs},
              {"resourceVersion", "99"}}}};
  }

  kube::Client& client() { return *client_; }

  std::vector<std::string> requests() {
    std::lock_guard lock(mu_);
    return requests_;
  }

  // The ConfigMaps sent (POST, PUT), in order.
  std::vector<json> config_maps_sent() {
    std::lock_guard lock(mu_);
    return config_maps_sent_;
  }

 private:
  void Seen(const httplib::Request& req) {
    std::lock_guard lock(mu_);
    std::string path = req.path;
    path.erase(0, path.rfind('/', path.rfind('/') - 1));  // the last two parts
    requests_.push_back(req.method + " " + path);
    if (path.find("configmaps") != std::string::npos && !req.body.empty()) {
      config_maps_sent_.push_back(json::parse(req.body));
    }
  }

  FakeApiServer api_;
  std::unique_ptr<kube::Client> client_;
  std::mutex mu_;
  std::vector<std::string> requests_;
  std::vector<json> config_maps_sent_;
};

json ConfigMap(const std::string& name) {
  return {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata", {{"name", name}, {"namespace", kNs}}}};
}

Plan SomePlan(bool replace) {
  Plan plan;
  plan.route_table = ConfigMap("ax-route-table");
  if (replace) (*plan.route_table)["metadata"]["resourceVersion"] = "7";
  plan.history_creates = {ConfigMap("ax-route-table-v4"),
                          ConfigMap("ax-route-table-v3")};
  plan.history_deletes = {"ax-route-table-v1"};
  ObjectRef node{"gslb.ax.io/v1alpha1", "Node", kNs, "gz-01", "uid-1", "5", 1};
  plan.status_updates.push_back({node, {{"health", "Up"}}, json::object()});
  plan.events.push_back({node, EventType::kNormal, "NodeUp", "back"});
  return plan;
}

TEST(PlanApplier, WritesInThePlansOrder) {
  FakeCluster cluster(false);
  kube::EventRecorder events(cluster.client(), {"ax-operator", "test"});
  PlanApplier applier(cluster.client(), events, [] { return true; });
  WrittenObjects written;
  const ApplyResult r = applier.Apply(SomePlan(false), kNs, written);
  EXPECT_FALSE(r.failed) << r.error.ToString();
  EXPECT_TRUE(r.published);
  EXPECT_TRUE(r.route_table_written);
  EXPECT_FALSE(r.conflict);
  EXPECT_THAT(cluster.requests(),
              ElementsAre("POST /ax-system/configmaps",  // the table
                          "POST /ax-system/configmaps",  // v4
                          "POST /ax-system/configmaps",  // v3: exists, fine
                          "DELETE /configmaps/ax-route-table-v1",  // gone, fine
                          "PUT /gz-01/status",  // stale resourceVersion
                          "GET /nodes/gz-01",   // re-read
                          "PUT /gz-01/status",  // at "6"
                          "POST /ax-system/events"));
  // What was written shows in the next gather before any informer has it.
  const auto now = WrittenObjects::Clock::now();
  const std::vector<json> cms = written.Merge("ConfigMap", {}, now);
  ASSERT_EQ(cms.size(), 2u);
  const std::vector<json> nodes = written.Merge("Node", {}, now);
  ASSERT_EQ(nodes.size(), 1u);
  EXPECT_EQ(nodes[0]["status"], json({{"health", "Up"}}));
}

const json kOwner = {{"apiVersion", "v1"},
                     {"kind", "ServiceAccount"},
                     {"name", "ax-operator"},
                     {"uid", "uid-sa"}};

// A ConfigMap's name and owner references.
using NamedOwners = std::pair<std::string, json>;

// Those of each ConfigMap sent.
std::vector<NamedOwners> Owners(FakeCluster& cluster) {
  std::vector<NamedOwners> out;
  for (const json& cm : cluster.config_maps_sent()) {
    out.emplace_back(cm["metadata"]["name"],
                     cm["metadata"].value("ownerReferences", json()));
  }
  return out;
}

TEST(PlanApplier, CreatedConfigMapsCarryTheOwner) {
  FakeCluster cluster(false);
  kube::EventRecorder events(cluster.client(), {"ax-operator", "test"});
  PlanApplier applier(
      cluster.client(), events, [] { return true; }, json::array({kOwner}));
  WrittenObjects written;
  const ApplyResult r = applier.Apply(SomePlan(false), kNs, written);
  EXPECT_FALSE(r.failed) << r.error.ToString();
  const json owned = json::array({kOwner});
  EXPECT_THAT(Owners(cluster),
              ElementsAre(NamedOwners("ax-route-table", owned),
                          NamedOwners("ax-route-table-v4", owned),
                          NamedOwners("ax-route-table-v3", owned)));
}

// A replace keeps the references the plan carries over from the stored
// ConfigMap, and adds the owner to one from before there was an owner.
TEST(PlanApplier, ReplacedConfigMapKeepsItsOwnersAndGetsTheOwner) {
  FakeCluster cluster(false);
  kube::EventRecorder events(cluster.client(), {"ax-operator", "test"});
  PlanApplier applier(
      cluster.client(), events, [] { return true; }, json::array({kOwner}));
  const json other = {{"apiVersion", "example.test/v1"},
                      {"kind", "Thing"},
                      {"name", "keeper"},
                      {"uid", "uid-other"}};
  Plan plan = SomePlan(true);
  (*plan.route_table)["metadata"]["ownerReferences"] = json::array({other});
  plan.history_creates.clear();
  WrittenObjects written;
  const ApplyResult r = applier.Apply(plan, kNs, written);
  EXPECT_FALSE(r.failed) << r.error.ToString();
  EXPECT_THAT(cluster.requests(), Contains("PUT /configmaps/ax-route-table"));
  EXPECT_THAT(
      Owners(cluster),
      ElementsAre(NamedOwners("ax-route-table", json::array({other, kOwner}))));
}

TEST(PlanApplier, RouteTableConflictStopsThePassAndKeepsTheWinner) {
  FakeCluster cluster(true);
  kube::EventRecorder events(cluster.client(), {"ax-operator", "test"});
  PlanApplier applier(cluster.client(), events, [] { return true; });
  WrittenObjects written;
  const ApplyResult r = applier.Apply(SomePlan(true), kNs, written);
  EXPECT_TRUE(r.conflict);
  EXPECT_EQ(r.failed, ReconcileStage::kPublish);
  EXPECT_FALSE(r.route_table_written);
  EXPECT_THAT(cluster.requests(),
              ElementsAre("PUT /configmaps/ax-route-table",
                          "GET /configmaps/ax-route-table"));
  const std::vector<json> cms =
      written.Merge("ConfigMap", {}, WrittenObjects::Clock::now());
  ASSERT_EQ(cms.size(), 1u);
  EXPECT_EQ(cms[0], FakeCluster::Winner());
}

// A fake that accepts every Node status and Event; what was written, in order.
class AcceptingCluster {
 public:
  AcceptingCluster() {
    httplib::Server& s = api_.server();
    s.Put(
        R"(/apis/gslb.ax.io/v1alpha1/namespaces/ax-system/nodes/([a-z0-9-]+)/status)",
        [this](const httplib::Request& req, httplib::Response& res) {
          Seen("status " + req.matches[1].str());
          res.set_content(req.body, "application/json");
        });
    s.Post("/api/v1/namespaces/ax-system/events",
           [this](const httplib::Request& req, httplib::Response& res) {
             const json event = json::parse(req.body);
             Seen("event " + event["reason"].get<std::string>());
             res.status = 201;
             res.set_content(req.body, "application/json");
           });
    api_.Start();
    client_ = api_.NewClient();
  }
  kube::Client& client() { return *client_; }
  // What was written since the last call.
  std::vector<std::string> TakeRequests() {
    std::lock_guard lock(mu_);
    return std::exchange(requests_, {});
  }

 private:
  void Seen(std::string what) {
    std::lock_guard lock(mu_);
    requests_.push_back(std::move(what));
  }
  FakeApiServer api_;
  std::unique_ptr<kube::Client> client_;
  std::mutex mu_;
  std::vector<std::string> requests_;
};

ObjectRef NodeRef(const std::string& name) {
  return {"gslb.ax.io/v1alpha1", "Node", kNs, name, "uid", "5", 1};
}

// Nodes a..d with a status each, listed out of order; only c has an Event.
Plan FourStatuses() {
  Plan plan;
  for (const char* name : {"d", "b", "c", "a"}) {
    plan.status_updates.push_back(
        {NodeRef(name), {{"health", "Down"}}, json::object()});
  }
  plan.events.push_back({NodeRef("c"), EventType::kWarning, "NodeDown", "c"});
  ObjectRef table{"v1", "ConfigMap", kNs, "ax-route-table", "uid", "9", 0};
  plan.events.push_back({table, EventType::kNormal, "SnapshotPublished", "v2"});
  return plan;
}

// An applier with a status slice of 0 against an AcceptingCluster: from the
// second status write of a pass on, it asks whether the world changed.
class ZeroSliceTest : public ::testing::Test {
 protected:
  AcceptingCluster cluster_;
  kube::EventRecorder events_{cluster_.client(), {"ax-operator", "test"}};
  PlanApplier applier_{cluster_.client(), events_, [] { return true; },
                       json::array(), std::chrono::milliseconds(0)};
  WrittenObjects written_;
};

// The world changed before every write (a slice of 0): each pass writes one
// status and gives way. The one with an Event goes first; the rest follow by
// name, each pass going on after the last it wrote, so every object gets its
// status although every pass gives way. The Events of objects whose status
// waits wait too; an Event about an object without a status (the table) goes.
TEST_F(ZeroSliceTest, StatusWritesGiveWayAndGoOnWhereTheyStopped) {
  const auto changed = [] { return true; };
  ApplyResult r = applier_.Apply(FourStatuses(), kNs, written_, changed);
  EXPECT_FALSE(r.failed);
  EXPECT_EQ(r.unwritten, (std::set<std::string>{"Node/a", "Node/b", "Node/d"}));
  EXPECT_THAT(cluster_.TakeRequests(), ElementsAre("status c", "event NodeDown",
                                                   "event SnapshotPublished"));

  // The next plans no longer have c's Event (its status was written).
  Plan later = FourStatuses();
  later.events.erase(later.events.begin());
  std::vector<std::string> order;
  for (int pass = 0; pass < 5; ++pass) {
    r = applier_.Apply(later, kNs, written_, changed);
    EXPECT_EQ(r.unwritten.size(), 3u);
    const std::vector<std::string> wrote = cluster_.TakeRequests();
    ASSERT_EQ(wrote.size(), 2u);
    EXPECT_EQ(wrote[1], "event SnapshotPublished");
    order.push_back(wrote[0]);
  }
  // c went first out of order (its Event), which left the round where it
  // was: at a.
  EXPECT_THAT(order, ElementsAre("status a", "status b", "status c", "status d",
                                 "status a"));
}

// Nothing changed meanwhile: every status is written in one pass, whatever
// the slice.
TEST_F(ZeroSliceTest, StatusWritesRunToTheEndWhenNothingChanged) {
  const ApplyResult r =
      applier_.Apply(FourStatuses(), kNs, written_, [] { return false; });
  EXPECT_THAT(r.unwritten, IsEmpty());
  EXPECT_THAT(cluster_.TakeRequests(),
              ElementsAre("status c", "status a", "status b", "status d",
                          "event NodeDown", "event SnapshotPublished"));
}

TEST(PlanApplier, WritesNothingWithoutTheLease) {
  FakeCluster cluster(false);
  kube::EventRecorder events(cluster.client(), {"ax-operator", "test"});
  PlanApplier applier(cluster.client(), events, [] { return false; });
  WrittenObjects written;
  const ApplyResult r = applier.Apply(SomePlan(false), kNs, written);
  EXPECT_TRUE(r.stopped);
  EXPECT_FALSE(r.failed);
  EXPECT_EQ(r.writes, 0u);
  EXPECT_THAT(cluster.requests(), IsEmpty());
}

}  // namespace
}  // namespace ax::controller
