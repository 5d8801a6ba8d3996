// Response rate limiting with an injected clock: the limit and its refill,
// slip, independent prefixes, TCP exemption through the responder, and a shared
// table under two threads.
#include "responder/rrl.h"

#include <gtest/gtest.h>

#include <thread>

#include "dns_test_util.h"
#include "responder/responder.h"
#include "responder/serving_state.h"

namespace ax::dns {
namespace {

IpAddress Ip(const char* text) { return *ParseIp(text); }

constexpr int64_t kT0 = 1'700'000'000'000;  // a realistic epoch clock

TEST(RateLimiterTest, BurstThenRefillAtTheRate) {
  RateLimiter rrl({.responses_per_second = 10, .burst = 5, .slip = 0});
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(rrl.Check(Ip("192.0.2.1"), kT0), RrlVerdict::kAllow) << i;
  }
  EXPECT_EQ(rrl.Check(Ip("192.0.2.1"), kT0), RrlVerdict::kDrop);
  EXPECT_EQ(rrl.Check(Ip("192.0.2.1"), kT0 + 99), RrlVerdict::kDrop);
  EXPECT_EQ(rrl.Check(Ip("192.0.2.1"), kT0 + 100),
            RrlVerdict::kAllow);  // 1 per 100 ms
  EXPECT_EQ(rrl.Check(Ip("192.0.2.1"), kT0 + 100), RrlVerdict::kDrop);
  // A second later the bucket is full again (burst 5), not fuller.
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(rrl.Check(Ip("192.0.2.1"), kT0 + 5000), RrlVerdict::kAllow) << i;
  }
  EXPECT_EQ(rrl.Check(Ip("192.0.2.1"), kT0 + 5000), RrlVerdict::kDrop);
}

TEST(RateLimiterTest, SlipSendsEveryNthLimitedResponse) {
  RateLimiter rrl({.responses_per_second = 1, .burst = 1, .slip = 2});
  EXPECT_EQ(rrl.Check(Ip("192.0.2.1"), kT0), RrlVerdict::kAllow);
  std::vector<RrlVerdict> verdicts;
  verdicts.reserve(6);
  for (int i = 0; i < 6; ++i)
    verdicts.push_back(rrl.Check(Ip("192.0.2.1"), kT0));
  EXPECT_EQ(verdicts,
            (std::vector<RrlVerdict>{RrlVerdict::kDrop, RrlVerdict::kSlip,
                                     RrlVerdict::kDrop, RrlVerdict::kSlip,
                                     RrlVerdict::kDrop, RrlVerdict::kSlip}));
  RateLimiter all_slip({.responses_per_second = 1, .burst = 1, .slip = 1});
  all_slip.Check(Ip("192.0.2.1"), kT0);
  EXPECT_EQ(all_slip.Check(Ip("192.0.2.1"), kT0), RrlVerdict::kSlip);
  EXPECT_EQ(all_slip.Check(Ip("192.0.2.1"), kT0), RrlVerdict::kSlip);
}

TEST(RateLimiterTest, PrefixesAreIndependentAndSharedWithin) {
  RateLimiter rrl({.responses_per_second = 1, .burst = 1, .slip = 0});
  EXPECT_EQ(rrl.Check(Ip("192.0.2.1"), kT0), RrlVerdict::kAllow);
  EXPECT_EQ(rrl.Check(Ip("192.0.2.200"), kT0), RrlVerdict::kDrop);  // same /24
  EXPECT_EQ(rrl.Check(Ip("192.0.3.1"), kT0), RrlVerdict::kAllow);   // next /24
  EXPECT_EQ(rrl.Check(Ip("2001:db8:0:1::1"), kT0), RrlVerdict::kAllow);
  EXPECT_EQ(rrl.Check(Ip("2001:db8:0:ff::1"), kT0),
            RrlVerdict::kDrop);  // same /56
  EXPECT_EQ(rrl.Check(Ip("2001:db8:0:100::1"), kT0), RrlVerdict::kAllow);
}

TEST(RateLimiterTest, FixedTableSurvivesManyPrefixes) {
  // Far more prefixes than buckets: the longest idle are evicted and nothing
  // grows. A newcomer is limited only when it shares a bucket's 16-bit tag
  // (rare).
  RateLimiter rrl({.responses_per_second = 1, .burst = 1, .table_size = 16});
  int limited = 0;
  for (uint32_t i = 0; i < 10000; ++i) {
    IpAddress ip;
    ip.bytes = {10, static_cast<uint8_t>(i >> 8), static_cast<uint8_t>(i), 1};
    if (rrl.Check(ip, kT0 + i) != RrlVerdict::kAllow) ++limited;
  }
  EXPECT_LE(limited, 3);
}

TEST(RateLimiterTest, DisabledAllowsEverything) {
  RateLimiter rrl({.enabled = false, .responses_per_second = 1, .burst = 1});
  for (int i = 0; i < 100; ++i) {
    EXPECT_EQ(rrl.Check(Ip("192.0.2.1"), kT0), RrlVerdict::kAllow);
  }
}

TEST(RateLimiterTest, SharedBetweenThreadsAdmitsTheBurstOnce) {
  RateLimiter rrl({.responses_per_second = 1, .burst = 100, .slip = 0});
  std::atomic<int> allowed{0};
  auto hammer = [&] {
    for (int i = 0; i < 20000; ++i) {
      if (rrl.Check(Ip("192.0.2.1"), kT0) == RrlVerdict::kAllow) ++allowed;
    }
  };
  std::thread a(hammer), b(hammer);
  a.join();
  b.join();
  EXPECT_GE(allowed.load(), 100);
  EXPECT_LE(allowed.load(), 102);  // a CAS storm may fail open, rarely
}

class ResponderRrlTest : public ::testing::Test {
 protected:
  size_t Ask(const std::string& source, Transport transport, int64_t now_ms,
             std::vector<uint8_t>* out_bytes = nullptr) {
    std::vector<uint8_t> out(4096);
    testing::Query q;
    q.Edns();
    const QueryMeta meta{*ParseIp(source), transport, now_ms};
    const size_t n = responder_.Respond(state_.get(), nullptr, meta,
                                        testing::Build(q), out, &info_);
    out.resize(n);
    if (out_bytes) *out_bytes = out;
    return n;
  }

  std::string error_;
  std::shared_ptr<const ServingState> state_ = ServingState::Make(
      std::make_shared<Snapshot>(testing::ResponderWorld().Build()), {},
      &error_);
  RateLimiter rrl_{{.responses_per_second = 2, .burst = 2, .slip = 2}};
  Responder responder_{ResponderOptions{}, 1, &rrl_};
  ResponseInfo info_;
};

TEST_F(ResponderRrlTest, LimitSlipAndTcpExemption) {
  EXPECT_GT(Ask("192.0.2.1", Transport::kUdp, kT0), 0u);
  EXPECT_GT(Ask("192.0.2.2", Transport::kUdp, kT0), 0u);
  EXPECT_FALSE(info_.rrl_limited);
  // Third in the same /24 and the same instant: limited, dropped.
  EXPECT_EQ(Ask("192.0.2.3", Transport::kUdp, kT0), 0u);
  EXPECT_TRUE(info_.rrl_limited);
  EXPECT_TRUE(info_.dropped);
  // Fourth: slipped, a truncated answer with no records so the client uses TCP.
  std::vector<uint8_t> out;
  EXPECT_GT(Ask("192.0.2.4", Transport::kUdp, kT0, &out), 0u);
  EXPECT_TRUE(info_.rrl_limited);
  EXPECT_TRUE(info_.truncated);
  testing::Reply r(out);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r.tc());
  EXPECT_TRUE(r.Answer().empty());
  EXPECT_EQ(ldns_pkt_qdcount(r.pkt()), 1);
  EXPECT_TRUE(r.edns());
  // TCP is never limited.
  for (int i = 0; i < 20; ++i) {
    EXPECT_GT(Ask("192.0.2.1", Transport::kTcp, kT0), 0u);
    EXPECT_FALSE(info_.rrl_limited);
  }
  // Another prefix is unaffected; half a second later one more UDP answer.
  EXPECT_GT(Ask("198.51.100.1", Transport::kUdp, kT0), 0u);
  EXPECT_GT(Ask("192.0.2.1", Transport::kUdp, kT0 + 500), 0u);
  EXPECT_FALSE(info_.rrl_limited);
}

}  // namespace
}  // namespace ax::dns
