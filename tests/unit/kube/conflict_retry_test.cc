// UpdateWithRetry against a fake apiserver that answers the first PUTs with
// 409: it re-reads, re-applies the change to the fresh object and writes
// again; other errors and a no-op change end it at once.
#include "ax/kube/conflict_retry.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>

#include "fake_apiserver.h"

namespace ax::kube {
namespace {

using ::ax::kube::testing::FakeApiServer;
using nlohmann::json;

constexpr char kConflict[] = R"({"kind":"Status","reason":"Conflict","code":409,
  "message":"Operation cannot be fulfilled on configmaps \"c\": the object has been modified"})";

// A ConfigMap whose resourceVersion moves on by itself (another writer)
// until `conflicts` PUTs were refused.
class ConflictingServer {
 public:
  explicit ConflictingServer(int conflicts, int put_status = 200)
      : conflicts_left_(conflicts) {
    fake_.server().Get(".*",
                       [this](const httplib::Request&, httplib::Response& res) {
                         std::lock_guard lock(mu_);
                         ++gets;
                         res.set_content(Current().dump(), "application/json");
                       });
    fake_.server().Put(".*", [this, put_status](const httplib::Request& req,
                                                httplib::Response& res) {
      std::lock_guard lock(mu_);
      ++puts;
      last_path = req.path;
      const json sent = json::parse(req.body);
      if (conflicts_left_ > 0) {
        --conflicts_left_;
        ++version_;  // someone else wrote meanwhile
        res.status = 409;
        res.set_content(kConflict, "application/json");
        return;
      }
      if (put_status != 200) {
        res.status = put_status;
        res.set_content(R"({"kind":"Status","reason":"Invalid","code":422})",
                        "application/json");
        return;
      }
      written = sent;
      res.set_content(sent.dump(), "application/json");
    });
    fake_.Start();
    client = fake_.NewClient();
  }

  json Current() const {
    return {{"metadata",
             {{"name", "c"},
              {"namespace", "ns"},
              {"resourceVersion", std::to_string(version_)}}},
            {"data", {{"other", std::to_string(version_)}}}};
  }

  int gets = 0, puts = 0;
  std::string last_path;
  json written;

 private:
  std::mutex mu_;
  int conflicts_left_;
  int version_ = 1;
  FakeApiServer fake_;  // after what its handlers use

 public:
  // Destroyed first: its idle keep-alive connection would hold the
  // server's stop for the keep-alive timeout.
  std::unique_ptr<Client> client;
};

const Resource kObject = ConfigMaps().In("ns").Named("c");

Mutation SetKey(int* calls) {
  return [calls](json& object) {
    ++*calls;
    object["data"]["mine"] = "yes";
    return true;
  };
}

TEST(UpdateWithRetryTest, RereadsAndRetriesOnConflict) {
  ConflictingServer server(2);
  int calls = 0;
  auto written = UpdateWithRetry(*server.client, kObject, SetKey(&calls));
  ASSERT_TRUE(written.ok()) << written.error().ToString();
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(server.gets, 3);
  EXPECT_EQ(server.puts, 3);
  // Written on top of the third read: the other writer's change is kept.
  EXPECT_EQ(server.written["metadata"]["resourceVersion"], "3");
  EXPECT_EQ(server.written["data"]["other"], "3");
  EXPECT_EQ(server.written["data"]["mine"], "yes");
}

TEST(UpdateWithRetryTest, GivesUpAfterTheAttempts) {
  ConflictingServer server(10);
  int calls = 0;
  RetryOptions options;
  options.attempts = 3;
  auto written = UpdateWithRetry(*server.client, kObject, SetKey(&calls),
                                 UpdateTarget::kObject, options);
  ASSERT_FALSE(written.ok());
  EXPECT_TRUE(written.error().IsConflict());
  EXPECT_EQ(server.puts, 3);
}

TEST(UpdateWithRetryTest, OtherErrorsAreNotRetried) {
  ConflictingServer server(0, 422);
  int calls = 0;
  auto written = UpdateWithRetry(*server.client, kObject, SetKey(&calls));
  ASSERT_FALSE(written.ok());
  EXPECT_EQ(written.error().reason, "Invalid");
  EXPECT_EQ(server.puts, 1);
}

TEST(UpdateWithRetryTest, StatusGoesToTheSubresource) {
  ConflictingServer server(1);
  int calls = 0;
  ASSERT_TRUE(UpdateWithRetry(*server.client, kObject, SetKey(&calls),
                              UpdateTarget::kStatus)
                  .ok());
  EXPECT_EQ(server.last_path, "/api/v1/namespaces/ns/configmaps/c/status");
}

TEST(UpdateWithRetryTest, NoChangeNoWrite) {
  ConflictingServer server(0);
  auto result =
      UpdateWithRetry(*server.client, kObject, [](json&) { return false; });
  ASSERT_TRUE(result.ok());
  EXPECT_EQ((*result)["metadata"]["resourceVersion"], "1");
  EXPECT_EQ(server.puts, 0);
}

}  // namespace
}  // namespace ax::kube
