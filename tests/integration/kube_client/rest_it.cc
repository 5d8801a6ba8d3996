// The REST client against a real kube-apiserver: pagination, server-side
// apply with field managers and force, the status subresource, 409 retry,
// Events, TLS trust, and the in-cluster path with a real service-account
// token (RBAC says 403, a bad token says 401, a rotated file is re-read).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "ax/kube/conflict_retry.h"
#include "ax/kube/event_recorder.h"
#include "ax/kube/kube_time.h"
#include "kube_it_env.h"

namespace ax::kube::it {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

TEST(RestIt, ListFollowsPagesOverMoreObjectsThanTheLimit) {
  auto client = AdminClient();
  const Resource config_maps = ConfigMaps().In(Namespace());
  for (int i = 0; i < 23; ++i) {
    auto created = client->Create(
        config_maps,
        ConfigMap("page-" + std::to_string(i), {}, {{"it", "pages"}}));
    ASSERT_TRUE(created.ok()) << created.error().ToString();
  }
  ListOptions paged;
  paged.label_selector = "it=pages";
  paged.limit = 5;
  auto list = client->List(config_maps, paged);
  ASSERT_TRUE(list.ok()) << list.error().ToString();
  std::set<std::string> names;
  for (const json& item : list->items) names.insert(item["metadata"]["name"]);
  EXPECT_EQ(list->items.size(), 23u);
  EXPECT_EQ(names.size(), 23u);
  EXPECT_FALSE(list->resource_version.empty());

  ListOptions one_page = paged;
  one_page.limit = 0;
  auto whole = client->List(config_maps, one_page);
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ(whole->items.size(), 23u);
}

json Report(const std::string& vantage, const std::string& node) {
  return {{"apiVersion", "gslb.ax.io/v1alpha1"},
          {"kind", "ProbeReport"},
          {"metadata", {{"name", "ssa"}}},
          {"spec",
           {{"vantage", vantage},
            {"observedAt", "2024-01-01T00:00:00.000Z"},
            {"results", {{{"node", node}, {"health", "Up"}, {"up", true}}}}}}};
}

std::set<std::string> Managers(const json& object) {
  std::set<std::string> managers;
  for (const json& entry : object["metadata"]["managedFields"]) {
    managers.insert(entry["manager"].get<std::string>() + "/" +
                    entry["operation"].get<std::string>() +
                    (entry.contains("subresource")
                         ? "/" + entry["subresource"].get<std::string>()
                         : ""));
  }
  return managers;
}

TEST(RestIt, ServerSideApplyMergesManagersAndForceTakesOver) {
  auto client = AdminClient();
  const Resource report = ProbeReports().In(Namespace()).Named("ssa");
  // Creates the object.
  auto first =
      client->Apply(report, Report("east", "gz-01"), {"probe-east", false, {}});
  ASSERT_TRUE(first.ok()) << first.error().ToString();
  EXPECT_EQ(Managers(*first), std::set<std::string>{"probe-east/Apply"});

  // A second manager's different vantage and results (an atomic list)
  // collide with the first manager's fields.
  auto collide =
      client->Apply(report, Report("west", "bj-01"), {"probe-west", false, {}});
  ASSERT_FALSE(collide.ok());
  EXPECT_EQ(collide.error().http_status, 409);
  EXPECT_EQ(collide.error().reason, "Conflict");
  EXPECT_THAT(collide.error().message, HasSubstr("probe-east"));

  auto forced =
      client->Apply(report, Report("west", "bj-01"), {"probe-west", true, {}});
  ASSERT_TRUE(forced.ok()) << forced.error().ToString();
  EXPECT_EQ((*forced)["spec"]["vantage"], "west");
  std::set<std::string> nodes;
  for (const json& r : (*forced)["spec"]["results"]) nodes.insert(r["node"]);
  EXPECT_EQ(nodes, (std::set<std::string>{"bj-01"}));  // replaced whole
  // Both applied the same observedAt: it stays shared, so east stays.
  EXPECT_EQ(Managers(*forced),
            (std::set<std::string>{"probe-east/Apply", "probe-west/Apply"}));

  // Status through its own apply: the spec stays as it is.
  const json status = {
      {"apiVersion", "gslb.ax.io/v1alpha1"},
      {"kind", "ProbeReport"},
      {"metadata", {{"name", "ssa"}}},
      {"status", {{"stale", true}, {"observedGeneration", 2}}}};
  auto applied = client->ApplyStatus(report, status, {"ax-operator", true, {}});
  ASSERT_TRUE(applied.ok()) << applied.error().ToString();
  EXPECT_EQ((*applied)["status"]["stale"], true);
  EXPECT_EQ((*applied)["spec"]["vantage"], "west");
  EXPECT_TRUE(Managers(*applied).count("ax-operator/Apply/status"));
}

TEST(RestIt, StatusGoesOnlyThroughTheSubresource) {
  auto client = AdminClient();
  const Resource reports = ProbeReports().In(Namespace());
  json object = Report("north", "sh-01");
  object["metadata"]["name"] = "status";
  auto created = client->Create(reports, object);
  ASSERT_TRUE(created.ok()) << created.error().ToString();

  json with_status = *created;
  with_status["status"] = {{"stale", true}};
  auto main = client->Update(reports.Named("status"), with_status);
  ASSERT_TRUE(main.ok()) << main.error().ToString();
  EXPECT_FALSE(main->contains("status") && (*main)["status"].contains("stale"));

  with_status = *main;
  with_status["status"] = {{"stale", true}};
  with_status["spec"]["vantage"] = "ignored";
  auto status = client->UpdateStatus(reports.Named("status"), with_status);
  ASSERT_TRUE(status.ok()) << status.error().ToString();
  EXPECT_EQ((*status)["status"]["stale"], true);
  EXPECT_EQ((*status)["spec"]["vantage"], "north");

  // A stale resourceVersion is a 409 Conflict.
  auto stale = client->UpdateStatus(reports.Named("status"), *created);
  ASSERT_FALSE(stale.ok());
  EXPECT_TRUE(stale.error().IsConflict()) << stale.error().ToString();
}

TEST(RestIt, UpdateWithRetryRereadsAfterAConflict) {
  auto client = AdminClient();
  const Resource config_maps = ConfigMaps().In(Namespace());
  ASSERT_TRUE(
      client->Create(config_maps, ConfigMap("retry", {{"n", "0"}})).ok());
  int calls = 0;
  auto written =
      UpdateWithRetry(*client, config_maps.Named("retry"), [&](json& object) {
        if (++calls == 1) {
          // Another writer gets in between our read and our write.
          json theirs = object;
          theirs["data"]["theirs"] = "1";
          EXPECT_TRUE(client->Update(config_maps.Named("retry"), theirs).ok());
        }
        object["data"]["mine"] = "1";
        return true;
      });
  ASSERT_TRUE(written.ok()) << written.error().ToString();
  EXPECT_EQ(calls, 2);
  EXPECT_EQ((*written)["data"],
            (json{{"n", "0"}, {"theirs", "1"}, {"mine", "1"}}));

  auto exists = client->Create(config_maps, ConfigMap("retry"));
  ASSERT_FALSE(exists.ok());
  EXPECT_TRUE(exists.error().IsAlreadyExists());
  ASSERT_TRUE(client->Delete(config_maps.Named("retry")).ok());
  auto gone = client->Delete(config_maps.Named("retry"));
  ASSERT_FALSE(gone.ok());
  EXPECT_TRUE(gone.error().IsNotFound());
}

TEST(RestIt, EventsAreCreatedAndRepeatsCounted) {
  auto client = AdminClient();
  const Resource config_maps = ConfigMaps().In(Namespace());
  auto object = client->Create(config_maps, ConfigMap("evented"));
  ASSERT_TRUE(object.ok()) << object.error().ToString();
  EventRecorder recorder(*client, {"ax-kube-it", "it-host"});
  const ObjectReference about = ReferenceTo(*object);
  EXPECT_EQ(about.kind, "ConfigMap");
  auto first =
      recorder.Record(about, EventType::kWarning, "AxItProbe", "seen once");
  ASSERT_TRUE(first.ok()) << first.error().ToString();
  auto second =
      recorder.Record(about, EventType::kWarning, "AxItProbe", "seen once");
  ASSERT_TRUE(second.ok()) << second.error().ToString();
  EXPECT_EQ((*second)["count"], 2);

  ListOptions by_object;
  by_object.field_selector = "involvedObject.name=evented,reason=AxItProbe";
  auto events = client->List(Events().In(Namespace()), by_object);
  ASSERT_TRUE(events.ok()) << events.error().ToString();
  ASSERT_EQ(events->items.size(), 1u);
  const json& event = events->items[0];
  EXPECT_EQ(event["involvedObject"]["uid"], about.uid);
  EXPECT_EQ(event["count"], 2);
  EXPECT_EQ(event["type"], "Warning");
  EXPECT_EQ(event["source"]["component"], "ax-kube-it");
}

std::string ReadPki(const std::string& name) {
  std::ifstream in(Env("AX_IT_PKI") + "/" + name);
  return {std::istreambuf_iterator<char>(in), {}};
}

TEST(RestIt, OnlyTheClusterCaIsTrusted) {
  Config wrong_ca = AdminConfig();
  wrong_ca.ca_pem =
      ReadPki("client-ca.crt");  // signed the admin, not the server
  auto client = Client::Create(wrong_ca);
  ASSERT_TRUE(client.ok()) << client.error().ToString();
  auto got = (*client)->Get(ConfigMaps().In(Namespace()).Named("x"));
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.error().http_status, 0);
  EXPECT_THAT(got.error().message, HasSubstr("certificate verify failed"));

  Config insecure = wrong_ca;
  insecure.insecure_skip_tls_verify = true;
  auto anyway = Client::Create(insecure);
  ASSERT_TRUE(anyway.ok());
  auto list = (*anyway)->List(ConfigMaps().In(Namespace()));
  EXPECT_TRUE(list.ok()) << list.error().ToString();

  Config mismatched = AdminConfig();
  mismatched.client_key_pem = ReadPki("serving.key");  // not the admin's key
  auto refused = Client::Create(mismatched);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().reason, kReasonInvalidConfig);
  EXPECT_THAT(refused.error().message, HasSubstr("does not match"));
}

TEST(RestIt, InClusterServiceAccountMeetsRbac) {
  const std::string mount = Env("AX_IT_SA_DIR");
  auto config = InClusterConfig(mount);
  ASSERT_TRUE(config.ok()) << config.error().ToString();
  EXPECT_EQ(config->default_namespace, Namespace());
  ClientOptions options;
  options.token_reload = std::chrono::seconds(1);
  auto made = Client::Create(*config, options);
  ASSERT_TRUE(made.ok()) << made.error().ToString();
  Client& client = **made;

  // The Role grants ConfigMaps ...
  auto list = client.List(ConfigMaps().In(config->default_namespace));
  ASSERT_TRUE(list.ok()) << list.error().ToString();
  // ... and nothing about Secrets.
  auto secret = client.Create(Secrets().In(config->default_namespace),
                              {{"apiVersion", "v1"},
                               {"kind", "Secret"},
                               {"metadata", {{"name", "nope"}}},
                               {"stringData", {{"k", "v"}}}});
  ASSERT_FALSE(secret.ok());
  EXPECT_TRUE(secret.error().IsForbidden());
  EXPECT_EQ(secret.error().reason, "Forbidden");
  EXPECT_THAT(secret.error().message,
              HasSubstr("User \"system:serviceaccount:" + Namespace() +
                        ":ax-kube-it\" cannot create resource \"secrets\""));

  // The token file is re-read: a rotated (here: broken) token takes effect,
  // and the good one again after it is put back.
  const std::string token_file = mount + "/token";
  std::string good;
  {
    std::ifstream in(token_file);
    good.assign(std::istreambuf_iterator<char>(in), {});
  }
  std::ofstream(token_file, std::ios::trunc) << "not-a-token";
  EXPECT_TRUE(Eventually([&] {
    auto denied = client.List(ConfigMaps().In(config->default_namespace));
    return !denied.ok() && denied.error().IsUnauthorized();
  }));
  std::ofstream(token_file, std::ios::trunc) << good;
  EXPECT_TRUE(Eventually([&] {
    return client.List(ConfigMaps().In(config->default_namespace)).ok();
  }));
}

}  // namespace
}  // namespace ax::kube::it
