// The REST verbs against a fake apiserver: methods, paths, query parameters,
// content types, the bearer token, pagination, Status errors, transport
// failures, timeouts and cancellation.
#include "ax/kube/client.h"

#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

#include "fake_apiserver.h"
#include "wait_for.h"

namespace ax::kube {
namespace {

using ::ax::kube::testing::FakeApiServer;
using ::ax::kube::testing::Seen;
using ::ax::kube::testing::SeenRequest;
using ::ax::testing::WaitFor;
using nlohmann::json;
using std::chrono::milliseconds;
using std::chrono::steady_clock;
using ::testing::HasSubstr;

const Resource kWidgets{"example.io", "v1", "widgets", "ns", ""};

class ClientTest : public ::testing::Test {
 protected:
  // Answers every request with `status` and `body`, remembering it.
  void AnswerAll(int status, const std::string& body) {
    const auto handler = [this, status, body](const httplib::Request& req,
                                              httplib::Response& res) {
      std::lock_guard lock(mu_);
      seen_.push_back(Seen(req));
      res.status = status;
      res.set_content(body, "application/json");
    };
    const char* any = ".*";
    fake_.server().Get(any, handler);
    fake_.server().Post(any, handler);
    fake_.server().Put(any, handler);
    fake_.server().Patch(any, handler);
    fake_.server().Delete(any, handler);
    fake_.Start();
    client_ = fake_.NewClient();
    ASSERT_NE(client_, nullptr);
  }

  SeenRequest Last() {
    std::lock_guard lock(mu_);
    return seen_.back();
  }

  // What the handlers touch outlives the server.
  std::mutex mu_;
  std::vector<SeenRequest> seen_;
  FakeApiServer fake_;
  std::unique_ptr<Client> client_;
};

TEST_F(ClientTest, GetSendsTheTokenAndParsesTheObject) {
  AnswerAll(200, R"({"kind":"Widget","metadata":{"name":"w"}})");
  auto got = client_->Get(kWidgets.Named("w"));
  ASSERT_TRUE(got.ok()) << got.error().ToString();
  EXPECT_EQ((*got)["kind"], "Widget");
  const SeenRequest req = Last();
  EXPECT_EQ(req.method, "GET");
  EXPECT_EQ(req.path, "/apis/example.io/v1/namespaces/ns/widgets/w");
  EXPECT_EQ(req.authorization, "Bearer test-token");
}

TEST_F(ClientTest, WritesUseTheRightVerbsPathsAndContentTypes) {
  AnswerAll(200, R"({"metadata":{"name":"w"}})");
  const json body = {{"metadata", {{"name", "w"}}}};
  const Resource w = kWidgets.Named("w");

  ASSERT_TRUE(client_->Create(kWidgets, body).ok());
  SeenRequest req = Last();
  EXPECT_EQ(req.method, "POST");
  EXPECT_EQ(req.path, "/apis/example.io/v1/namespaces/ns/widgets");
  EXPECT_EQ(req.content_type, "application/json");
  EXPECT_EQ(json::parse(req.body), body);

  ASSERT_TRUE(client_->Update(w, body).ok());
  EXPECT_EQ(Last().method, "PUT");
  EXPECT_EQ(Last().path, "/apis/example.io/v1/namespaces/ns/widgets/w");
  ASSERT_TRUE(client_->UpdateStatus(w, body).ok());
  EXPECT_EQ(Last().path, "/apis/example.io/v1/namespaces/ns/widgets/w/status");

  ASSERT_TRUE(client_->Apply(w, body, {"ax-operator", true, {}}).ok());
  req = Last();
  EXPECT_EQ(req.method, "PATCH");
  EXPECT_EQ(req.content_type, "application/apply-patch+yaml");
  EXPECT_EQ(req.query, "fieldManager=ax-operator&force=true");
  ASSERT_TRUE(client_->ApplyStatus(w, body, {"ax-operator", false, {}}).ok());
  EXPECT_EQ(Last().path, "/apis/example.io/v1/namespaces/ns/widgets/w/status");
  EXPECT_EQ(Last().query, "fieldManager=ax-operator");

  ASSERT_TRUE(client_->MergePatch(w, {{"count", 2}}).ok());
  EXPECT_EQ(Last().content_type, "application/merge-patch+json");

  ASSERT_TRUE(client_->Delete(w).ok());
  EXPECT_EQ(Last().method, "DELETE");
}

TEST_F(ClientTest, MisuseIsReportedWithoutARequest) {
  AnswerAll(200, "{}");
  auto no_name = client_->Get(kWidgets);
  ASSERT_FALSE(no_name.ok());
  EXPECT_EQ(no_name.error().reason, kReasonInvalidRequest);
  auto no_manager = client_->Apply(kWidgets.Named("w"), json::object(), {});
  ASSERT_FALSE(no_manager.ok());
  EXPECT_THAT(no_manager.error().message, HasSubstr("fieldManager"));
  std::lock_guard lock(mu_);
  EXPECT_TRUE(seen_.empty());
}

TEST_F(ClientTest, StatusAnswersBecomeErrors) {
  AnswerAll(404, R"({"kind":"Status","apiVersion":"v1","status":"Failure",
    "message":"widgets.example.io \"w\" not found","reason":"NotFound",
    "details":{"name":"w"},"code":404})");
  auto got = client_->Get(kWidgets.Named("w"));
  ASSERT_FALSE(got.ok());
  EXPECT_TRUE(got.error().IsNotFound());
  EXPECT_EQ(got.error().message, "widgets.example.io \"w\" not found");
  auto deleted = client_->Delete(kWidgets.Named("w"));
  ASSERT_FALSE(deleted.ok());
  EXPECT_TRUE(deleted.error().IsNotFound());
}

TEST_F(ClientTest, ANonJsonAnswerIsABadResponse) {
  AnswerAll(200, "<html>proxy login</html>");
  auto got = client_->Get(kWidgets.Named("w"));
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.error().reason, kReasonBadResponse);
}

TEST(ClientListTest, FollowsContinueTokensAcrossPages) {
  std::vector<std::string> queries;
  FakeApiServer fake;
  fake.server().Get(
      "/api/v1/namespaces/ns/configmaps",
      [&](const httplib::Request& req, httplib::Response& res) {
        queries.push_back(Seen(req).query);
        const std::string token = req.get_param_value("continue");
        const int page = token.empty() ? 0 : std::stoi(token.substr(2));
        json items = json::array();
        for (int i = 0; i < 2; ++i) {
          items.push_back(
              {{"metadata", {{"name", "cm" + std::to_string(page * 2 + i)}}}});
        }
        json metadata = {{"resourceVersion", "77"}};
        if (page < 2) metadata["continue"] = "p=" + std::to_string(page + 1);
        res.set_content(json{{"kind", "ConfigMapList"},
                             {"metadata", metadata},
                             {"items", items}}
                            .dump(),
                        "application/json");
      });
  fake.Start();
  auto client = fake.NewClient();
  ListOptions options;
  options.limit = 2;
  options.label_selector = "app=ax";
  auto list = client->List(ConfigMaps().In("ns"), options);
  ASSERT_TRUE(list.ok()) << list.error().ToString();
  ASSERT_EQ(list->items.size(), 6u);
  EXPECT_EQ(list->items[5]["metadata"]["name"], "cm5");
  EXPECT_EQ(list->resource_version, "77");
  EXPECT_EQ(queries, (std::vector<std::string>{
                         "labelSelector=app%3Dax&limit=2",
                         "labelSelector=app%3Dax&limit=2&continue=p%3D1",
                         "labelSelector=app%3Dax&limit=2&continue=p%3D2"}));
}

TEST(ClientListTest, AnExpiredContinueTokenIsGone) {
  FakeApiServer fake;
  fake.server().Get(
      ".*", [](const httplib::Request& req, httplib::Response& res) {
        if (req.has_param("continue")) {
          res.status = 410;
          res.set_content(R"({"kind":"Status","reason":"Expired","code":410,
        "message":"The provided continue parameter is too old"})",
                          "application/json");
          return;
        }
        res.set_content(
            R"({"metadata":{"continue":"x","resourceVersion":"5"},"items":[]})",
            "application/json");
      });
  fake.Start();
  auto list = fake.NewClient()->List(ConfigMaps());
  ASSERT_FALSE(list.ok());
  EXPECT_TRUE(list.error().IsGone());
  EXPECT_EQ(list.error().reason, "Expired");
}

// A loopback port nobody listens on: bound (so that no client socket can
// get it as its own port and connect to itself) but not listening.
class UnlistenedPort {
 public:
  UnlistenedPort() : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(addr);
    EXPECT_EQ(::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    EXPECT_EQ(::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len), 0);
    port_ = ntohs(addr.sin_port);
  }
  ~UnlistenedPort() { ::close(fd_); }
  int port() const { return port_; }

 private:
  int fd_;
  int port_ = 0;
};

TEST(ClientTransportTest, ARefusedConnectionIsATransportError) {
  const UnlistenedPort port;
  Config config;
  config.server = "http://127.0.0.1:" + std::to_string(port.port());
  auto client = Client::Create(config);
  ASSERT_TRUE(client.ok());
  auto got = (*client)->Get(ConfigMaps().In("a").Named("b"));
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.error().http_status, 0);
  EXPECT_EQ(got.error().reason, kReasonTransport);
  EXPECT_THAT(got.error().message,
              HasSubstr("GET /api/v1/namespaces/a/configmaps/b"));
}

TEST(ClientTransportTest, BadServerUrlsFailAtCreate) {
  for (const char* server :
       {"ftp://x", "https://", "https://h:99999", "https://[::1"}) {
    Config config;
    config.server = server;
    auto client = Client::Create(config);
    ASSERT_FALSE(client.ok()) << server;
    EXPECT_EQ(client.error().reason, kReasonInvalidConfig) << server;
  }
  Config prefixed;
  prefixed.server = "https://[::1]:6443/k8s/clusters/c1/";
  EXPECT_TRUE(Client::Create(prefixed).ok());
}

TEST(ClientTransportTest, AServerPathPrefixIsKept) {
  std::string path;
  FakeApiServer fake;
  fake.server().Get(".*",
                    [&](const httplib::Request& req, httplib::Response& res) {
                      path = req.path;
                      res.set_content("{}", "application/json");
                    });
  fake.Start();
  Config config = fake.config();
  config.server += "/proxy/";
  auto client = Client::Create(config);
  ASSERT_TRUE(client.ok());
  ASSERT_TRUE((*client)->Get(ConfigMaps().In("a").Named("b")).ok());
  EXPECT_EQ(path, "/proxy/api/v1/namespaces/a/configmaps/b");
}

class SlowServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fake_.server().Get(
        ".*", [this](const httplib::Request&, httplib::Response& res) {
          ++arrived_;
          // The fault: a server that does not answer until released (5 s
          // at most).
          const auto until = steady_clock::now() + std::chrono::seconds(5);
          while (!release_ && steady_clock::now() < until) {
            std::this_thread::sleep_for(milliseconds(10));
          }
          res.set_content("{}", "application/json");
        });
    fake_.Start();
    client_ = fake_.NewClient();
  }
  void TearDown() override { release_ = true; }

  std::atomic<bool> release_{false};  // outlives the server's handlers
  std::atomic<int> arrived_{0};       // requests the server got
  FakeApiServer fake_;
  std::unique_ptr<Client> client_;
};

TEST_F(SlowServerTest, ACallTimesOut) {
  const auto start = steady_clock::now();
  auto got = client_->Get(ConfigMaps().In("a").Named("b"),
                          {milliseconds(200), nullptr});
  const auto took = steady_clock::now() - start;
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.error().reason, kReasonTransport);
  EXPECT_LT(took, milliseconds(2000));
}

TEST_F(SlowServerTest, CancelAbortsACallInFlight) {
  CancelToken cancel;
  std::optional<Result<json>> got;
  std::thread caller([&] {
    got.emplace(client_->Get(ConfigMaps().In("a").Named("b"),
                             {milliseconds(0), &cancel}));
  });
  // Not ASSERT: the caller must be canceled and joined either way.
  EXPECT_TRUE(WaitFor([&] { return arrived_ == 1; })) << "no request arrived";
  const auto start = steady_clock::now();
  cancel.Cancel();
  caller.join();
  EXPECT_LT(steady_clock::now() - start, milliseconds(1000));
  ASSERT_TRUE(got.has_value());
  ASSERT_FALSE(got->ok());
  EXPECT_TRUE(got->error().IsCanceled()) << got->error().ToString();
  // A canceled token refuses new calls at once.
  auto after =
      client_->Get(ConfigMaps().In("a").Named("b"), {milliseconds(0), &cancel});
  ASSERT_FALSE(after.ok());
  EXPECT_TRUE(after.error().IsCanceled());
}

}  // namespace
}  // namespace ax::kube
