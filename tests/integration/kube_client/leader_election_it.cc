// Leader election between two electors on one real Lease, with shortened
// durations (lease 2 s, renew deadline 1.5 s, retry 0.25 s): exactly one
// leads; when it stops renewing without a word the other takes over once the
// lease has stood still for its duration; a released lease changes hands at
// once; the Lease carries client-go's fields.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cctype>

#include "ax/kube/leader_election.h"
#include "kube_it_env.h"

namespace ax::kube::it {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

const ElectionTiming kFast{std::chrono::seconds(2), milliseconds(1500),
                           milliseconds(250)};

struct Elector {
  std::atomic<int> started{0}, stopped{0};
  std::unique_ptr<LeaderElector> elector;

  Elector(Client& client, const std::string& lease, const std::string& identity,
          bool release_on_stop, uint64_t seed) {
    LeaderElectionConfig config;
    config.lease = Leases().In(Namespace()).Named(lease);
    config.identity = identity;
    config.timing = kFast;
    config.release_on_stop = release_on_stop;
    config.on_started_leading = [this] { ++started; };
    config.on_stopped_leading = [this] { ++stopped; };
    config.random = SeededRandom(seed);
    auto made = LeaderElector::Create(client, std::move(config));
    EXPECT_TRUE(made.ok()) << made.error().ToString();
    elector = std::move(*made);
  }
};

// Samples both electors for `duration`: false if both ever led at once.
bool NeverBothLead(const Elector& a, const Elector& b, milliseconds duration) {
  const auto until = steady_clock::now() + duration;
  while (steady_clock::now() < until) {
    if (a.elector->IsLeader() && b.elector->IsLeader()) return false;
    std::this_thread::sleep_for(milliseconds(5));
  }
  return true;
}

// metav1.MicroTime as client-go writes it: "2006-01-02T15:04:05.000000Z".
bool IsMicroTime(const std::string& text) {
  const std::string shape = "dddd-dd-ddTdd:dd:dd.ddddddZ";
  if (text.size() != shape.size()) return false;
  for (size_t i = 0; i < shape.size(); ++i) {
    const bool ok = shape[i] == 'd'
                        ? std::isdigit(static_cast<unsigned char>(text[i])) != 0
                        : text[i] == shape[i];
    if (!ok) return false;
  }
  return true;
}

nlohmann::json LeaseSpecNow(Client& client, const std::string& lease) {
  auto got = client.Get(Leases().In(Namespace()).Named(lease));
  EXPECT_TRUE(got.ok()) << got.error().ToString();
  return got.ok() ? (*got)["spec"] : nlohmann::json();
}

TEST(LeaderElectionIt, ExactlyOneLeadsAndTheOtherTakesOverAfterTheLease) {
  auto client_a = AdminClient(), client_b = AdminClient();
  Elector a(*client_a, "silent", "elector-a", /*release_on_stop=*/false, 1);
  Elector b(*client_b, "silent", "elector-b", false, 2);
  a.elector->Start();
  b.elector->Start();
  ASSERT_TRUE(
      Eventually([&] { return a.elector->IsLeader() || b.elector->IsLeader(); },
                 std::chrono::seconds(10)));
  EXPECT_TRUE(NeverBothLead(a, b, milliseconds(3000)));  // > one lease duration
  Elector& leader = a.elector->IsLeader() ? a : b;
  Elector& other = &leader == &a ? b : a;
  const std::string leader_id = &leader == &a ? "elector-a" : "elector-b";
  const std::string other_id = &leader == &a ? "elector-b" : "elector-a";
  EXPECT_EQ(leader.started, 1);
  EXPECT_EQ(other.started, 0);

  nlohmann::json spec = LeaseSpecNow(*client_a, "silent");
  EXPECT_EQ(spec["holderIdentity"], leader_id);
  EXPECT_EQ(spec["leaseDurationSeconds"], 2);
  EXPECT_TRUE(IsMicroTime(spec["acquireTime"])) << spec["acquireTime"];
  EXPECT_TRUE(IsMicroTime(spec["renewTime"])) << spec["renewTime"];
  const int64_t transitions = spec["leaseTransitions"];

  // The leader goes quiet (as a crashed or partitioned process would).
  const auto quiet = steady_clock::now();
  leader.elector->Stop();
  EXPECT_EQ(leader.stopped, 1);
  ASSERT_TRUE(Eventually([&] { return other.elector->IsLeader(); },
                         std::chrono::seconds(10)));
  const auto took = steady_clock::now() - quiet;
  // Not before the lease stood still for 2 s after its last renewal (at
  // most one retry period before the stop), nor much later.
  EXPECT_GE(took, milliseconds(2000 - 250));
  EXPECT_LE(took, milliseconds(2000 + 3 * 300 + 500));

  spec = LeaseSpecNow(*client_a, "silent");
  EXPECT_EQ(spec["holderIdentity"], other_id);
  EXPECT_EQ(spec["leaseTransitions"], transitions + 1);
  other.elector->Stop();
  EXPECT_EQ(other.started, 1);
  EXPECT_EQ(other.stopped, 1);
}

TEST(LeaderElectionIt, AReleasedLeaseChangesHandsAtOnce) {
  auto client = AdminClient();
  Elector a(*client, "released", "elector-a", /*release_on_stop=*/true, 3);
  a.elector->Start();
  ASSERT_TRUE(Eventually([&] { return a.elector->IsLeader(); },
                         std::chrono::seconds(10)));
  Elector b(*client, "released", "elector-b", true, 4);
  b.elector->Start();
  EXPECT_TRUE(NeverBothLead(a, b, milliseconds(1000)));
  EXPECT_FALSE(b.elector->IsLeader());

  const auto released = steady_clock::now();
  a.elector->Stop();
  const std::string holder =
      LeaseSpecNow(*client, "released")["holderIdentity"];
  EXPECT_TRUE(holder.empty() || holder == "elector-b") << holder;
  ASSERT_TRUE(Eventually([&] { return b.elector->IsLeader(); },
                         std::chrono::seconds(5)));
  // An empty holder is free at once: b takes it at its next attempt, well
  // before a two-second lease could have run out.
  EXPECT_LT(steady_clock::now() - released, milliseconds(1000));
  b.elector->Stop();
  EXPECT_EQ(LeaseSpecNow(*client, "released")["holderIdentity"], "");
}

}  // namespace
}  // namespace ax::kube::it
