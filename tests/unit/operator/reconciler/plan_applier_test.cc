// PlanApplier against a fake apiserver: the write order a plan demands
// (ConfigMap, kept versions, statuses, Events), "already done" answers, a
// status conflict re-read and retried, a route-table conflict stopping the
// pass with what won recorded, and no write at all without the lease.
#include "plan_applier.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <mutex>
#include <vector>

#include "../../kube/fake_apiserver.h"

namespace ax::controller {
namespace {

using kube::testing::FakeApiServer;
using nlohmann::json;
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

 private:
  void Seen(const httplib::Request& req) {
    std::lock_guard lock(mu_);
    std::string path = req.path;
    path.erase(0, path.rfind('/', path.rfind('/') - 1));  // the last two parts
    requests_.push_back(req.method + " " + path);
  }

  FakeApiServer api_;
  std::unique_ptr<kube::Client> client_;
  std::mutex mu_;
  std::vector<std::string> requests_;
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
