// Leader-election decisions on an injected clock: create, wait, take over
// only after the record stood still for its duration by our clock, renew
// keeping acquireTime, count transitions, step down by the deadline.
#include "ax/kube/lease_decision.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace ax::kube {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

class LeaseDecisionTest : public ::testing::Test {
 protected:
  LeaseDecision Decide(const std::optional<LeaseSpec>& current,
                       const std::string& identity = "me") {
    return DecideLease(current, identity, timing_, now_, wall_, &memory_);
  }

  static LeaseSpec HeldBy(const std::string& holder, int64_t transitions = 0) {
    return LeaseSpec{holder, 15, "2024-01-01T00:00:00.000000Z",
                     "2024-01-01T00:00:10.000000Z", transitions};
  }

  ElectionTiming timing_;
  SteadyTime now_ = SteadyTime() + seconds(1000);
  // Our wall clock is far off the writer's: it must not matter.
  WallTime wall_ = WallTime(seconds(1893456000));  // 2030-01-01
  ElectorMemory memory_;
};

TEST_F(LeaseDecisionTest, CreatesAMissingLease) {
  const LeaseDecision d = Decide(std::nullopt);
  EXPECT_EQ(d.action, LeaseAction::kCreate);
  EXPECT_EQ(d.desired.holder, "me");
  EXPECT_EQ(d.desired.lease_duration_s, 15);
  EXPECT_EQ(d.desired.acquire_time, "2030-01-01T00:00:00.000000Z");
  EXPECT_EQ(d.desired.renew_time, d.desired.acquire_time);
  EXPECT_EQ(d.desired.transitions, 0);
}

TEST_F(LeaseDecisionTest, WaitsForTheLeaseDurationByItsOwnClock) {
  const LeaseSpec other = HeldBy("other", 3);
  EXPECT_EQ(Decide(other).action, LeaseAction::kWait);
  EXPECT_EQ(memory_.observed_at, now_);
  now_ += milliseconds(14999);
  EXPECT_EQ(Decide(other).action, LeaseAction::kWait);
  now_ += milliseconds(1);
  const LeaseDecision d = Decide(other);
  ASSERT_EQ(d.action, LeaseAction::kUpdate);
  EXPECT_EQ(d.desired.holder, "me");
  EXPECT_EQ(d.desired.transitions, 4);
  EXPECT_EQ(d.desired.acquire_time, "2030-01-01T00:00:00.000000Z");
}

TEST_F(LeaseDecisionTest, EveryChangeOfTheRecordRestartsTheWait) {
  LeaseSpec other = HeldBy("other");
  EXPECT_EQ(Decide(other).action, LeaseAction::kWait);
  now_ += seconds(10);
  other.renew_time = "2024-01-01T00:00:20.000000Z";  // it renewed
  EXPECT_EQ(Decide(other).action, LeaseAction::kWait);
  now_ += seconds(10);  // 20 s since first seen, 10 s since the renewal
  EXPECT_EQ(Decide(other).action, LeaseAction::kWait);
  now_ += seconds(5);
  EXPECT_EQ(Decide(other).action, LeaseAction::kUpdate);
}

TEST_F(LeaseDecisionTest, UsesTheDurationTheHolderWrote) {
  LeaseSpec other = HeldBy("other");
  other.lease_duration_s = 3;
  EXPECT_EQ(Decide(other).action, LeaseAction::kWait);
  now_ += seconds(3);
  EXPECT_EQ(Decide(other).action, LeaseAction::kUpdate);
}

TEST_F(LeaseDecisionTest, ARenewalKeepsAcquireTimeAndTransitions) {
  const LeaseSpec mine = HeldBy("me", 2);
  const LeaseDecision d = Decide(mine);
  ASSERT_EQ(d.action, LeaseAction::kUpdate);
  EXPECT_EQ(d.desired.acquire_time, mine.acquire_time);
  EXPECT_EQ(d.desired.transitions, 2);
  EXPECT_EQ(d.desired.renew_time, "2030-01-01T00:00:00.000000Z");
}

TEST_F(LeaseDecisionTest, AReleasedLeaseIsTakenAtOnce) {
  const LeaseSpec released = ReleasedSpec(HeldBy("other", 5), wall_);
  EXPECT_EQ(released.holder, "");
  EXPECT_EQ(released.lease_duration_s, 1);
  EXPECT_EQ(released.transitions, 5);
  const LeaseDecision d = Decide(released);
  ASSERT_EQ(d.action, LeaseAction::kUpdate);
  EXPECT_EQ(d.desired.transitions, 6);
}

TEST_F(LeaseDecisionTest, OurOwnWriteIsTheLastChangeSeen) {
  const LeaseDecision d = Decide(std::nullopt);
  RememberWrite(d.desired, now_, &memory_);
  now_ += seconds(20);
  // Another elector reading our record starts its own wait from now.
  ElectorMemory theirs;
  EXPECT_EQ(
      DecideLease(d.desired, "other", timing_, now_, wall_, &theirs).action,
      LeaseAction::kWait);
  EXPECT_EQ(*memory_.observed, d.desired);
}

TEST(RenewDeadlineTest, PassesAtTheDeadline) {
  const ElectionTiming timing;
  const SteadyTime renewed = SteadyTime() + seconds(50);
  EXPECT_FALSE(
      RenewDeadlinePassed(renewed, renewed + milliseconds(9999), timing));
  EXPECT_TRUE(RenewDeadlinePassed(renewed, renewed + seconds(10), timing));
}

TEST(ElectionTimingTest, ClientGoDefaultsAreValidAndOrderMatters) {
  EXPECT_TRUE(ValidateTiming(ElectionTiming{}).ok());
  EXPECT_TRUE(
      ValidateTiming({seconds(2), milliseconds(1500), milliseconds(250)}).ok());
  EXPECT_FALSE(
      ValidateTiming({seconds(10), milliseconds(10000), milliseconds(2000)})
          .ok());
  EXPECT_FALSE(
      ValidateTiming({seconds(15), milliseconds(2000), milliseconds(2000)})
          .ok());
  EXPECT_FALSE(
      ValidateTiming({seconds(15), milliseconds(10000), milliseconds(0)}).ok());
}

TEST(LeaseSpecTest, RoundTripsThroughALeaseObject) {
  nlohmann::json lease = nlohmann::json::parse(R"({
    "apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
    "metadata": {"name": "ax", "resourceVersion": "42"},
    "spec": {"holderIdentity": "a", "leaseDurationSeconds": 15,
             "acquireTime": "2024-01-01T00:00:00.000000Z",
             "renewTime": "2024-01-01T00:00:05.000000Z",
             "leaseTransitions": 2, "strategy": "OldestEmulationVersion"}})");
  const LeaseSpec spec = LeaseSpecOf(lease);
  EXPECT_EQ(spec, (LeaseSpec{"a", 15, "2024-01-01T00:00:00.000000Z",
                             "2024-01-01T00:00:05.000000Z", 2}));
  SetLeaseSpec(LeaseSpec{"b", 15, "", "2024-01-01T00:00:09.000000Z", 3},
               &lease);
  EXPECT_EQ(lease["spec"]["holderIdentity"], "b");
  EXPECT_FALSE(lease["spec"].contains("acquireTime"));
  EXPECT_EQ(lease["spec"]["strategy"], "OldestEmulationVersion");  // kept
  EXPECT_EQ(lease["metadata"]["resourceVersion"], "42");
  EXPECT_EQ(LeaseSpecOf(nlohmann::json::object()), LeaseSpec{});
}

}  // namespace
}  // namespace ax::kube
