// The leader elector's I/O loop against a fake apiserver holding one Lease
// (optimistic concurrency included): it creates and renews the lease (with
// its owner references), waits out another holder, releases on Stop, and —
// what a real apiserver cannot be made to do on cue — stops leading by the
// renew deadline when the server stops answering.
#include "ax/kube/leader_election.h"

#include <gtest/gtest.h>

#include <atomic>
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

constexpr char kLeasePath[] =
    "/apis/coordination.k8s.io/v1/namespaces/ns/leases/ax";

// One Lease in memory behind GET, POST and PUT (409 on a stale
// resourceVersion); `stall` makes every request hang until released.
class LeaseServer {
 public:
  LeaseServer() {
    auto& server = fake_.server();
    server.Get(kLeasePath, [this](const httplib::Request&,
                                  httplib::Response& res) {
      if (!Serve(res)) return;
      std::lock_guard lock(mu_);
      if (lease_.is_null()) {
        res.status = 404;
        res.set_content(R"({"kind":"Status","reason":"NotFound","code":404})",
                        "application/json");
        return;
      }
      res.set_content(lease_.dump(), "application/json");
    });
    server.Post(
        "/apis/coordination.k8s.io/v1/namespaces/ns/leases",
        [this](const httplib::Request& req, httplib::Response& res) {
          if (!Serve(res)) return;
          std::lock_guard lock(mu_);
          if (!lease_.is_null()) {
            res.status = 409;
            res.set_content(
                R"({"kind":"Status","reason":"AlreadyExists","code":409})",
                "application/json");
            return;
          }
          Store(json::parse(req.body), res);
        });
    server.Put(kLeasePath, [this](const httplib::Request& req,
                                  httplib::Response& res) {
      if (!Serve(res)) return;
      std::lock_guard lock(mu_);
      const json sent = json::parse(req.body);
      if (sent["metadata"].value("resourceVersion", "") !=
          lease_["metadata"]["resourceVersion"]) {
        res.status = 409;
        res.set_content(R"({"kind":"Status","reason":"Conflict","code":409})",
                        "application/json");
        return;
      }
      Store(sent, res);
    });
    fake_.Start();
  }
  ~LeaseServer() { stall = false; }

  // Another elector's renewal.
  void WriteHolder(const std::string& holder) {
    std::lock_guard lock(mu_);
    json lease = {{"apiVersion", "coordination.k8s.io/v1"},
                  {"kind", "Lease"},
                  {"metadata", {{"name", "ax"}, {"namespace", "ns"}}},
                  {"spec",
                   {{"holderIdentity", holder},
                    {"leaseDurationSeconds", 2},
                    {"renewTime", std::to_string(++renewals_)},
                    {"leaseTransitions", 4}}}};
    httplib::Response ignored;
    Store(lease, ignored);
  }

  json Spec() {
    std::lock_guard lock(mu_);
    return lease_.is_null() ? json() : lease_["spec"];
  }

  json OwnerReferences() {
    std::lock_guard lock(mu_);
    return lease_.is_null()
               ? json()
               : lease_["metadata"].value("ownerReferences", json());
  }

  std::unique_ptr<Client> NewClient() const { return fake_.NewClient(); }

  std::atomic<bool> stall{false};
  std::atomic<steady_clock::time_point> last_write{};

 private:
  // false (after a stall) when the request must not be answered.
  bool Serve(httplib::Response& res) {
    // The fault: a server that hangs while `stall` (10 s at most).
    const auto until = steady_clock::now() + std::chrono::seconds(10);
    while (stall && steady_clock::now() < until) {
      std::this_thread::sleep_for(milliseconds(5));
    }
    if (!stall) return true;
    res.status = 503;
    return false;
  }

  void Store(json lease, httplib::Response& res) {
    lease["metadata"]["resourceVersion"] = std::to_string(++version_);
    lease_ = lease;
    last_write = steady_clock::now();
    res.set_content(lease.dump(), "application/json");
  }

  std::mutex mu_;
  json lease_;
  int version_ = 0;
  int renewals_ = 0;
  FakeApiServer fake_;  // after what its handlers use
};

const ElectionTiming kFast{std::chrono::seconds(2), milliseconds(1500),
                           milliseconds(250)};

struct Counted {
  std::atomic<int> started{0}, stopped{0};
  std::atomic<steady_clock::time_point> stopped_at{};

  LeaderElectionConfig Config(bool release_on_stop = true) {
    LeaderElectionConfig config;
    config.lease = Leases().In("ns").Named("ax");
    config.identity = "me";
    config.timing = kFast;
    config.release_on_stop = release_on_stop;
    config.on_started_leading = [this] { ++started; };
    config.on_stopped_leading = [this] {
      stopped_at = steady_clock::now();
      ++stopped;
    };
    config.random = SeededRandom(1);
    return config;
  }
};

TEST(LeaderElectorTest, CreatesRenewsAndReleases) {
  LeaseServer server;
  auto client = server.NewClient();
  Counted counted;
  auto elector = LeaderElector::Create(*client, counted.Config());
  ASSERT_TRUE(elector.ok()) << elector.error().ToString();
  (*elector)->Start();
  ASSERT_TRUE(WaitFor([&] { return (*elector)->IsLeader(); }));
  const json first = server.Spec();
  EXPECT_EQ(first["holderIdentity"], "me");
  EXPECT_EQ(first["leaseDurationSeconds"], 2);
  EXPECT_EQ(first["leaseTransitions"], 0);
  ASSERT_TRUE(WaitFor(
      [&] { return server.Spec()["renewTime"] != first["renewTime"]; }));
  EXPECT_EQ(server.Spec()["acquireTime"], first["acquireTime"]);

  (*elector)->Stop();
  EXPECT_FALSE((*elector)->IsLeader());
  EXPECT_EQ(counted.started, 1);
  EXPECT_EQ(counted.stopped, 1);
  EXPECT_EQ(server.Spec()["holderIdentity"], "");
  EXPECT_EQ(server.Spec()["leaseDurationSeconds"], 1);
}

TEST(LeaderElectorTest, StopsLeadingByTheRenewDeadlineWhenTheServerHangs) {
  LeaseServer server;
  auto client = server.NewClient();
  Counted counted;
  auto elector = LeaderElector::Create(*client, counted.Config());
  ASSERT_TRUE(elector.ok());
  (*elector)->Start();
  ASSERT_TRUE(WaitFor([&] { return (*elector)->IsLeader(); }));
  // Wait for a renewal, then stall everything.
  const json acquired = server.Spec();
  ASSERT_TRUE(WaitFor(
      [&] { return server.Spec()["renewTime"] != acquired["renewTime"]; }));
  server.stall = true;
  ASSERT_TRUE(WaitFor([&] { return counted.stopped == 1; }));
  const auto gave_up = counted.stopped_at.load() - server.last_write.load();
  // The deadline runs from when the last stored renewal was sent (a moment
  // before the server stored it), and the elector wakes for it: no renewal
  // attempt hanging on the silent server may keep it leading past it.
  EXPECT_GE(gave_up, milliseconds(1500 - 200));
  EXPECT_LE(gave_up, milliseconds(1500 + 100));
  EXPECT_FALSE((*elector)->IsLeader());
  server.stall = false;
  (*elector)->Stop();
}

TEST(LeaderElectorTest, WaitsOutAnotherHolderThenTakesOver) {
  LeaseServer server;
  server.WriteHolder("other");
  auto client = server.NewClient();
  Counted counted;
  auto elector = LeaderElector::Create(*client, counted.Config());
  ASSERT_TRUE(elector.ok());
  (*elector)->Start();
  // The other holder keeps renewing for 3 s: more than one lease duration.
  // On purpose in real time: the elector waits on the steady clock.
  const auto until = steady_clock::now() + milliseconds(3000);
  while (steady_clock::now() < until) {
    server.WriteHolder("other");
    std::this_thread::sleep_for(milliseconds(200));  // its renewal period
    EXPECT_FALSE((*elector)->IsLeader());
  }
  const auto quiet = steady_clock::now();
  ASSERT_TRUE(WaitFor([&] { return (*elector)->IsLeader(); }));
  EXPECT_GE(steady_clock::now() - quiet, milliseconds(2000 - 300));
  EXPECT_EQ(server.Spec()["holderIdentity"], "me");
  EXPECT_EQ(server.Spec()["leaseTransitions"], 5);
  (*elector)->Stop();
}

const json kOwners = json::array({{{"apiVersion", "v1"},
                                   {"kind", "ServiceAccount"},
                                   {"name", "ax-operator"},
                                   {"uid", "uid-sa"}}});

// Starts an elector whose Lease names kOwners; null when it never leads.
std::unique_ptr<LeaderElector> LeadingWithOwners(Client& client,
                                                 Counted& counted) {
  LeaderElectionConfig config = counted.Config();
  config.owner_references = kOwners;
  auto elector = LeaderElector::Create(client, std::move(config));
  if (!elector.ok()) return nullptr;
  (*elector)->Start();
  if (!WaitFor([&] { return (*elector)->IsLeader(); })) return nullptr;
  return std::move(*elector);
}

TEST(LeaderElectorTest, CreatesTheLeaseWithItsOwnerAndKeepsIt) {
  LeaseServer server;
  auto client = server.NewClient();
  Counted counted;
  auto elector = LeadingWithOwners(*client, counted);
  ASSERT_NE(elector, nullptr);
  EXPECT_EQ(server.OwnerReferences(), kOwners);
  const json first = server.Spec();
  ASSERT_TRUE(WaitFor(
      [&] { return server.Spec()["renewTime"] != first["renewTime"]; }));
  EXPECT_EQ(server.OwnerReferences(), kOwners);  // renewed: not twice
  elector->Stop();
  EXPECT_EQ(server.OwnerReferences(), kOwners);  // released: still there
}

// A lease an older version created without an owner gets it when renewed.
TEST(LeaderElectorTest, AddsTheOwnerToALeaseWithout) {
  LeaseServer server;
  server.WriteHolder("me");
  ASSERT_TRUE(server.OwnerReferences().is_null());
  auto client = server.NewClient();
  Counted counted;
  auto elector = LeadingWithOwners(*client, counted);
  ASSERT_NE(elector, nullptr);
  EXPECT_EQ(server.OwnerReferences(), kOwners);
  elector->Stop();
}

TEST(LeaderElectorTest, RefusesBadConfig) {
  LeaseServer server;
  auto client = server.NewClient();
  Counted counted;
  LeaderElectionConfig config = counted.Config();
  config.timing.renew_deadline = std::chrono::seconds(5);  // > lease duration
  EXPECT_FALSE(LeaderElector::Create(*client, config).ok());
  config = counted.Config();
  config.identity.clear();
  EXPECT_FALSE(LeaderElector::Create(*client, config).ok());
}

}  // namespace
}  // namespace ax::kube
