// Events: the core/v1 Event the recorder creates, repeats folded into a
// count bump by merge patch, a new Event when the old one expired, the
// namespace of cluster-scoped objects, long messages cut.
#include "ax/kube/event_recorder.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <vector>

#include "fake_apiserver.h"

namespace ax::kube {
namespace {

using ::ax::kube::testing::FakeApiServer;
using ::ax::kube::testing::Seen;
using ::ax::kube::testing::SeenRequest;
using nlohmann::json;
using std::chrono::seconds;
using std::chrono::system_clock;

class EventRecorderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fake_.server().Post(
        ".*", [this](const httplib::Request& req, httplib::Response& res) {
          std::lock_guard lock(mu_);
          seen_.push_back(Seen(req));
          res.status = 201;
          res.set_content(req.body, "application/json");  // echo, as created
        });
    fake_.server().Patch(".*", [this](const httplib::Request& req,
                                      httplib::Response& res) {
      std::lock_guard lock(mu_);
      seen_.push_back(Seen(req));
      if (expire_patches_) {
        res.status = 404;
        res.set_content(R"({"kind":"Status","reason":"NotFound","code":404})",
                        "application/json");
        return;
      }
      json patched = json::parse(req.body);
      patched["metadata"] = {{"name", req.path.substr(req.path.rfind('/') + 1)},
                             {"namespace", "ax"}};
      res.set_content(patched.dump(), "application/json");
    });
    fake_.Start();
    client_ = fake_.NewClient();
    recorder_ = std::make_unique<EventRecorder>(
        *client_, EventSource{"ax-operator", "ax-operator-0"}, 4096,
        [this] { return now_; });
  }

  std::vector<SeenRequest> Requests() {
    std::lock_guard lock(mu_);
    return seen_;
  }

  const ObjectReference node_{"gslb.ax.io/v1alpha1", "Node", "ax", "gz-01",
                              "uid-1"};
  system_clock::time_point now_ = system_clock::time_point(seconds(1700000000));
  std::mutex mu_;
  std::vector<SeenRequest> seen_;
  std::atomic<bool> expire_patches_{false};
  FakeApiServer fake_;
  std::unique_ptr<Client> client_;
  std::unique_ptr<EventRecorder> recorder_;
};

TEST_F(EventRecorderTest, CreatesACoreV1Event) {
  auto event = recorder_->Record(node_, EventType::kWarning, "NodeDown",
                                 "gz-01 failed 3 probes");
  ASSERT_TRUE(event.ok()) << event.error().ToString();
  const SeenRequest req = Requests().at(0);
  EXPECT_EQ(req.method, "POST");
  EXPECT_EQ(req.path, "/api/v1/namespaces/ax/events");
  const json sent = json::parse(req.body);
  EXPECT_EQ(sent["apiVersion"], "v1");
  EXPECT_EQ(sent["kind"], "Event");
  EXPECT_EQ(sent["metadata"]["name"], "gz-01.17979cfe362a0000");  // ns in hex
  EXPECT_EQ(sent["metadata"]["namespace"], "ax");
  EXPECT_EQ(sent["involvedObject"], (json{{"apiVersion", "gslb.ax.io/v1alpha1"},
                                          {"kind", "Node"},
                                          {"name", "gz-01"},
                                          {"namespace", "ax"},
                                          {"uid", "uid-1"}}));
  EXPECT_EQ(sent["type"], "Warning");
  EXPECT_EQ(sent["reason"], "NodeDown");
  EXPECT_EQ(sent["message"], "gz-01 failed 3 probes");
  EXPECT_EQ(sent["count"], 1);
  EXPECT_EQ(sent["firstTimestamp"], "2023-11-14T22:13:20Z");
  EXPECT_EQ(sent["lastTimestamp"], "2023-11-14T22:13:20Z");
  EXPECT_EQ(sent["source"],
            (json{{"component", "ax-operator"}, {"host", "ax-operator-0"}}));
  EXPECT_EQ(sent["reportingComponent"], "ax-operator");
  EXPECT_EQ(sent["reportingInstance"], "ax-operator-0");
}

TEST_F(EventRecorderTest, FoldsRepeatsIntoACount) {
  ASSERT_TRUE(recorder_->Record(node_, EventType::kNormal, "Up", "ok").ok());
  now_ += seconds(30);
  ASSERT_TRUE(recorder_->Record(node_, EventType::kNormal, "Up", "ok").ok());
  now_ += seconds(30);
  ASSERT_TRUE(recorder_->Record(node_, EventType::kNormal, "Up", "ok").ok());
  ASSERT_TRUE(recorder_->Record(node_, EventType::kNormal, "Up", "other").ok());
  const auto seen = Requests();
  ASSERT_EQ(seen.size(), 4u);
  EXPECT_EQ(seen[1].method, "PATCH");
  EXPECT_EQ(seen[1].content_type, "application/merge-patch+json");
  EXPECT_EQ(
      seen[1].path,
      "/api/v1/namespaces/ax/events/" +
          json::parse(seen[0].body)["metadata"]["name"].get<std::string>());
  EXPECT_EQ(json::parse(seen[1].body),
            (json{{"count", 2}, {"lastTimestamp", "2023-11-14T22:13:50Z"}}));
  EXPECT_EQ(json::parse(seen[2].body)["count"], 3);
  EXPECT_EQ(seen[3].method, "POST");  // a different message is a new event
}

TEST_F(EventRecorderTest, AnExpiredEventIsCreatedAgain) {
  ASSERT_TRUE(recorder_->Record(node_, EventType::kNormal, "Up", "ok").ok());
  expire_patches_ = true;
  now_ += seconds(3600);
  ASSERT_TRUE(recorder_->Record(node_, EventType::kNormal, "Up", "ok").ok());
  const auto seen = Requests();
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[1].method, "PATCH");
  EXPECT_EQ(seen[2].method, "POST");
  EXPECT_EQ(json::parse(seen[2].body)["count"], 1);
}

TEST_F(EventRecorderTest, ClusterScopedObjectsGoToDefaultAndMessagesAreCut) {
  const ObjectReference ns{"v1", "Namespace", "", "ax", "uid-2"};
  std::string message(1022, 'x');
  message += "\xc3\xa9\xc3\xa9";  // a 2-byte character across byte 1024
  ASSERT_TRUE(recorder_->Record(ns, EventType::kNormal, "Seen", message).ok());
  const json sent = json::parse(Requests().at(0).body);
  EXPECT_EQ(Requests().at(0).path, "/api/v1/namespaces/default/events");
  EXPECT_FALSE(sent["involvedObject"].contains("namespace"));
  EXPECT_EQ(sent["message"].get<std::string>().size(), 1024u);
}

TEST(ReferenceToTest, ReadsTheObjectsIdentity) {
  const ObjectReference ref = ReferenceTo(json::parse(R"({
    "apiVersion": "gslb.ax.io/v1alpha1", "kind": "Node",
    "metadata": {"name": "gz-01", "namespace": "ax", "uid": "u"}})"));
  EXPECT_EQ(ref.api_version, "gslb.ax.io/v1alpha1");
  EXPECT_EQ(ref.kind, "Node");
  EXPECT_EQ(ref.ns, "ax");
  EXPECT_EQ(ref.name, "gz-01");
  EXPECT_EQ(ref.uid, "u");
}

}  // namespace
}  // namespace ax::kube
