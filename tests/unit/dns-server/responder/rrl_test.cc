// Response rate limiting with an injected monotonic clock: the limit and its
// refill, slip, independent prefixes, the classes (answers per name, type and
// subnet; NXDOMAIN per zone; errors per prefix) through the responder, the TCP
// exemption, a wall-clock step, a shared table under two threads, and the
// sampling of answers (a seeded RNG): floods still get their burst and then
// the rate, keys below the limit are never limited and rarely read.
#include "responder/rrl.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include "ax/rng.h"
#include "dns_test_util.h"
#include "responder/responder.h"
#include "responder/serving_state.h"

namespace ax::dns {
namespace {

IpAddress Ip(const char* text) { return *ParseIp(text); }

constexpr uint64_t kT0 = 5'000'000'000;  // µs: a realistic uptime
constexpr uint64_t kMs = 1000;

// One answer's budget: the same name, type and subnet each time.
RrlVerdict Answer(RateLimiter& rrl, const char* ip, uint64_t t,
                  uint64_t response = 7) {
  return rrl.Check(Ip(ip), RrlClass::kAnswer, response, t);
}

TEST(RateLimiterTest, BurstThenRefillAtTheRate) {
  RateLimiter rrl({.responses_per_second = 10, .burst = 5, .slip = 0});
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(Answer(rrl, "192.0.2.1", kT0), RrlVerdict::kAllow) << i;
  }
  EXPECT_EQ(Answer(rrl, "192.0.2.1", kT0), RrlVerdict::kDrop);
  EXPECT_EQ(Answer(rrl, "192.0.2.1", kT0 + 99 * kMs), RrlVerdict::kDrop);
  EXPECT_EQ(Answer(rrl, "192.0.2.1", kT0 + 100 * kMs),
            RrlVerdict::kAllow);  // 1 per 100 ms
  EXPECT_EQ(Answer(rrl, "192.0.2.1", kT0 + 100 * kMs), RrlVerdict::kDrop);
  // Seconds later the bucket is full again (burst 5), not fuller.
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(Answer(rrl, "192.0.2.1", kT0 + 5000 * kMs), RrlVerdict::kAllow)
        << i;
  }
  EXPECT_EQ(Answer(rrl, "192.0.2.1", kT0 + 5000 * kMs), RrlVerdict::kDrop);
}

TEST(RateLimiterTest, SlipSendsEveryNthLimitedResponse) {
  RateLimiter rrl({.responses_per_second = 1, .burst = 1, .slip = 2});
  EXPECT_EQ(Answer(rrl, "192.0.2.1", kT0), RrlVerdict::kAllow);
  std::vector<RrlVerdict> verdicts;
  verdicts.reserve(6);
  for (int i = 0; i < 6; ++i) verdicts.push_back(Answer(rrl, "192.0.2.1", kT0));
  EXPECT_EQ(verdicts,
            (std::vector<RrlVerdict>{RrlVerdict::kDrop, RrlVerdict::kSlip,
                                     RrlVerdict::kDrop, RrlVerdict::kSlip,
                                     RrlVerdict::kDrop, RrlVerdict::kSlip}));
  RateLimiter all_slip({.responses_per_second = 1, .burst = 1, .slip = 1});
  Answer(all_slip, "192.0.2.1", kT0);
  EXPECT_EQ(Answer(all_slip, "192.0.2.1", kT0), RrlVerdict::kSlip);
  EXPECT_EQ(Answer(all_slip, "192.0.2.1", kT0), RrlVerdict::kSlip);
}

TEST(RateLimiterTest, PrefixesAreIndependentAndSharedWithin) {
  RateLimiter rrl({.responses_per_second = 1, .burst = 1, .slip = 0});
  EXPECT_EQ(Answer(rrl, "192.0.2.1", kT0), RrlVerdict::kAllow);
  EXPECT_EQ(Answer(rrl, "192.0.2.200", kT0), RrlVerdict::kDrop);  // same /24
  EXPECT_EQ(Answer(rrl, "192.0.3.1", kT0), RrlVerdict::kAllow);   // next /24
  EXPECT_EQ(Answer(rrl, "2001:db8:0:1::1", kT0), RrlVerdict::kAllow);
  EXPECT_EQ(Answer(rrl, "2001:db8:0:ff::1", kT0),
            RrlVerdict::kDrop);  // same /56
  EXPECT_EQ(Answer(rrl, "2001:db8:0:100::1", kT0), RrlVerdict::kAllow);
}

// A reflection flood spends one answer's budget; a resolver asking for many
// answers spends many, and is not limited by the flood on another.
TEST(RateLimiterTest, AnswersHaveABudgetEach) {
  RateLimiter rrl({.responses_per_second = 2, .burst = 2, .slip = 0});
  for (uint64_t name = 1; name <= 1000; ++name) {
    EXPECT_EQ(Answer(rrl, "192.0.2.1", kT0, name), RrlVerdict::kAllow);
    EXPECT_EQ(Answer(rrl, "192.0.2.1", kT0, name), RrlVerdict::kAllow);
  }
  EXPECT_EQ(Answer(rrl, "192.0.2.1", kT0, 1), RrlVerdict::kDrop);
}

// NXDOMAIN and errors are their own classes with their own rates; errors of a
// prefix share one budget whatever they answer.
TEST(RateLimiterTest, ClassesHaveTheirOwnRates) {
  RateLimiter rrl({.responses_per_second = 1,
                   .nxdomains_per_second = 3,
                   .errors_per_second = 2,
                   .slip = 0});
  EXPECT_EQ(Answer(rrl, "192.0.2.1", kT0, 5), RrlVerdict::kAllow);
  EXPECT_EQ(Answer(rrl, "192.0.2.1", kT0, 5), RrlVerdict::kDrop);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(rrl.Check(Ip("192.0.2.1"), RrlClass::kNxDomain, 5, kT0),
              RrlVerdict::kAllow);
  }
  EXPECT_EQ(rrl.Check(Ip("192.0.2.1"), RrlClass::kNxDomain, 5, kT0),
            RrlVerdict::kDrop);
  EXPECT_EQ(rrl.Check(Ip("192.0.2.1"), RrlClass::kError, 1, kT0),
            RrlVerdict::kAllow);
  EXPECT_EQ(rrl.Check(Ip("192.0.2.1"), RrlClass::kError, 2, kT0),
            RrlVerdict::kAllow);
  EXPECT_EQ(rrl.Check(Ip("192.0.2.1"), RrlClass::kError, 3, kT0),
            RrlVerdict::kDrop);
}

TEST(RateLimiterTest, ClassOfRcode) {
  EXPECT_EQ(RrlClassOf(kRcodeNoError), RrlClass::kAnswer);
  EXPECT_EQ(RrlClassOf(kRcodeNxDomain), RrlClass::kNxDomain);
  for (uint16_t rcode : {kRcodeFormErr, kRcodeServFail, kRcodeNotImp,
                         kRcodeRefused, kRcodeBadVers}) {
    EXPECT_EQ(RrlClassOf(rcode), RrlClass::kError) << rcode;
  }
}

TEST(RateLimiterTest, FixedTableSurvivesManyKeys) {
  // Far more keys than buckets: the longest idle are evicted and nothing
  // grows. A newcomer is limited only when it shares a bucket's 16-bit tag
  // (rare).
  RateLimiter rrl({.responses_per_second = 1, .burst = 1, .table_size = 16});
  int limited = 0;
  for (uint32_t i = 0; i < 10000; ++i) {
    IpAddress ip;
    ip.bytes = {10, static_cast<uint8_t>(i >> 8), static_cast<uint8_t>(i), 1};
    if (rrl.Check(ip, RrlClass::kAnswer, i, kT0 + i) != RrlVerdict::kAllow) {
      ++limited;
    }
  }
  EXPECT_LE(limited, 3);
}

// Keys spread over the table as a random hash would, also when sources and
// responses differ in a few bits only (one Mix64 over terms that must not
// cancel: rrl.cc): 64 resolver /24s x 2,000 structured responses.
TEST(RateLimiterTest, KeysOfSimilarSourcesAndResponsesSpread) {
  RateLimiter rrl({});
  std::vector<uint64_t> keys, slots;
  for (int s = 1; s <= 64; ++s) {
    const IpAddress source = Ip(("127.0." + std::to_string(s) + ".1").c_str());
    for (uint64_t r = 0; r < 2000; ++r) {
      keys.push_back(rrl.Key(source, RrlClass::kAnswer, r << 40));
      slots.push_back(keys.back() & 0x1ffff);
    }
  }
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(std::unique(keys.begin(), keys.end()), keys.end());
  // 128,000 keys into 2^17 slots: a random function fills 1 - 1/e^0.977
  // of them, 82,000; a key whose terms cancel fills far fewer.
  std::sort(slots.begin(), slots.end());
  const auto filled = std::unique(slots.begin(), slots.end()) - slots.begin();
  EXPECT_GT(filled, 80'000);
}

TEST(RateLimiterTest, DisabledAllowsEverything) {
  RateLimiter rrl({.enabled = false, .responses_per_second = 1, .burst = 1});
  for (int i = 0; i < 100; ++i) {
    EXPECT_EQ(Answer(rrl, "192.0.2.1", kT0), RrlVerdict::kAllow);
  }
}

TEST(RateLimiterTest, SharedBetweenThreadsAdmitsTheBurstOnce) {
  RateLimiter rrl({.responses_per_second = 1, .burst = 100, .slip = 0});
  std::atomic<int> allowed{0};
  auto hammer = [&] {
    for (int i = 0; i < 20000; ++i) {
      if (Answer(rrl, "192.0.2.1", kT0) == RrlVerdict::kAllow) ++allowed;
    }
  };
  std::thread a(hammer), b(hammer);
  a.join();
  b.join();
  EXPECT_GE(allowed.load(), 100);
  EXPECT_LE(allowed.load(), 102);  // a CAS storm may fail open, rarely
}

// One answer of `key` as the responder counts it: weighed, then checked.
RrlVerdict Sampled(RateLimiter& rrl, Rng& rng, uint64_t key, uint64_t t,
                   int* reads = nullptr) {
  const uint32_t weight = rrl.AnswerWeight(key, t, rng.Next());
  if (reads != nullptr && weight != 0) ++*reads;
  return rrl.Check(key, RrlClass::kAnswer, t, weight);
}

uint64_t AnswerKey(RateLimiter& rrl, uint64_t response) {
  return rrl.Key(Ip("192.0.2.1"), RrlClass::kAnswer, response);
}

TEST(RateLimiterSampleTest, AtMostAnEighthOfTheBurstAndAPowerOfTwo) {
  struct Case {
    RrlOptions options;
    uint32_t weight;  // of a sampled answer of a key that is not hot
  };
  const Case cases[] = {
      {{}, 8},                                       // burst 100: 8
      {{.burst = 16}, 2},                            // 16 / 8
      {{.responses_per_second = 2, .burst = 2}, 1},  // exact
      {{.sample = 6}, 4},
      {{.sample = 1}, 1},
      {{.responses_per_second = 10'000, .sample = 64}, 64},
  };
  for (const Case& c : cases) {
    RateLimiter rrl(c.options);
    const uint64_t key = AnswerKey(rrl, 1);
    EXPECT_EQ(rrl.AnswerWeight(key, kT0, 0), c.weight);
    // Any other draw of the low bits skips the bucket when sampling.
    EXPECT_EQ(rrl.AnswerWeight(key, kT0, 1), c.weight == 1 ? 1u : 0u);
  }
}

// A flood on one answer, 10x its rate: about its burst at first (sampled
// until it turns hot), then exactly the rate, as without sampling.
TEST(RateLimiterSampleTest, AFloodGetsItsBurstThenTheRate) {
  RateLimiter rrl({.responses_per_second = 100, .slip = 0});
  Rng rng(42);
  constexpr int kKeys = 200;
  int first_total = 0;
  for (uint64_t k = 0; k < kKeys; ++k) {
    const uint64_t key = AnswerKey(rrl, k);
    int first = 0, later = 0;
    for (int ms = 0; ms < 5000; ++ms) {
      const bool allowed =
          Sampled(rrl, rng, key, kT0 + ms * kMs) == RrlVerdict::kAllow;
      (ms < 1000 ? first : later) += allowed;
    }
    // Burst 100 at the first instant plus 100/s after it; the burst is
    // off by the answers before the sample that turns the key hot.
    // The key turns hot at its fourth sample (4 x 8 > 100 / 4): at least
    // 4 answers, 32 on average, rarely over 130.
    EXPECT_GE(first, 100 + 99 - 28) << k;
    EXPECT_LE(first, 100 + 99 + 100) << k;
    EXPECT_NEAR(later, 400, 1) << k;
    first_total += first;
  }
  EXPECT_NEAR(first_total / double{kKeys}, 199, 8);
}

// Keys below their rate are never limited, and those well below it read
// their bucket about one answer in eight.
TEST(RateLimiterSampleTest, KeysBelowTheRateAreNeverLimitedAndRarelyRead) {
  RateLimiter rrl({.responses_per_second = 100});
  Rng rng(7);
  constexpr int kKeys = 2000;
  int limited = 0, reads = 0, answers = 0;
  for (int ms = 0; ms < 10'000; ms += 5) {
    for (uint64_t k = 0; k < kKeys; ++k) {
      // 80/s for the first hundred keys, 4/s for the others.
      if (k >= 100 && (ms + 5 * k) % 250 != 0) continue;
      if (k < 100 && ms % 25 >= 10) continue;
      ++answers;
      limited += Sampled(rrl, rng, AnswerKey(rrl, k), kT0 + ms * kMs,
                         k >= 100 ? &reads : nullptr) != RrlVerdict::kAllow;
    }
  }
  EXPECT_EQ(limited, 0);
  const int slow_answers = (kKeys - 100) * 40;
  EXPECT_GT(answers, slow_answers);
  // One in 8, and a little more: some slow keys share a hot mark with a
  // fast one (100 of 4,096 marks at most) and are counted exactly meanwhile.
  EXPECT_GT(reads, slow_answers / 9);
  EXPECT_LT(reads, slow_answers / 6);
}

// More floods at once than there are hot marks: the marks are shared, which
// makes keys exact, never free.
TEST(RateLimiterSampleTest, ManyFloodsAtOnceAreAllLimited) {
  RateLimiter rrl({.responses_per_second = 100, .slip = 0});
  Rng rng(3);
  constexpr int kKeys = 6000;
  std::vector<uint64_t> keys;
  for (uint64_t k = 0; k < kKeys; ++k) keys.push_back(AnswerKey(rrl, k));
  int64_t later = 0;
  for (int ms = 0; ms < 3000; ms += 4) {  // 250/s each
    for (const uint64_t key : keys) {
      later += Sampled(rrl, rng, key, kT0 + ms * kMs) == RrlVerdict::kAllow &&
               ms >= 1000;
    }
  }
  // Seconds 1-3: the rate (200 each), give or take the bucket's edge.
  EXPECT_LE(later, int64_t{kKeys} * 201);
  EXPECT_GE(later, int64_t{kKeys} * 199);
}

// A hot mark outlives its flood by one to two seconds.
TEST(RateLimiterSampleTest, AHotMarkExpires) {
  RateLimiter rrl({.responses_per_second = 100});
  Rng rng(5);
  const uint64_t key = AnswerKey(rrl, 9);
  for (int i = 0; i < 300; ++i) Sampled(rrl, rng, key, kT0);
  EXPECT_EQ(rrl.AnswerWeight(key, kT0, 1), 1u);  // hot: counted exactly
  EXPECT_EQ(rrl.AnswerWeight(key, kT0 + 900 * kMs, 1), 1u);
  EXPECT_EQ(rrl.AnswerWeight(key, kT0 + 2200 * kMs, 1), 0u);  // sampled
  EXPECT_EQ(rrl.AnswerWeight(AnswerKey(rrl, 10), kT0, 1), 0u);
}

// The one-byte stamp wraps: a mark whose expiry would be 0 ("never
// marked") is kept one stamp shorter, but is still a mark.
TEST(RateLimiterSampleTest, AMarkMadeWhereTheStampWrapsHolds) {
  RateLimiter rrl({.responses_per_second = 100});
  Rng rng(11);
  const uint64_t key = AnswerKey(rrl, 9);
  const uint64_t stamp = uint64_t{1} << 20;               // µs per stamp
  const uint64_t t = (uint64_t{20} * 256 + 254) * stamp;  // expiry 256 = 0
  for (int i = 0; i < 300; ++i) Sampled(rrl, rng, key, t);
  EXPECT_EQ(rrl.AnswerWeight(key, t, 1), 1u);
  EXPECT_EQ(rrl.AnswerWeight(key, t + stamp, 1), 0u);  // one stamp, not two
}

class ResponderRrlTest : public ::testing::Test {
 protected:
  size_t Ask(const std::string& source, Transport transport, uint64_t now_us,
             std::vector<uint8_t>* out_bytes = nullptr,
             testing::Query q = testing::Query{}) {
    std::vector<uint8_t> out(4096);
    if (q.opt_records == 0) q.Edns();
    const QueryMeta meta{*ParseIp(source), transport, wall_ms_, now_us};
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
  RateLimiter rrl_{{.responses_per_second = 2,
                    .nxdomains_per_second = 2,
                    .errors_per_second = 2,
                    .burst = 2,
                    .slip = 2}};
  int64_t wall_ms_ = 1'700'000'000'000;
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
  EXPECT_GT(Ask("192.0.2.1", Transport::kUdp, kT0 + 500 * kMs), 0u);
  EXPECT_FALSE(info_.rrl_limited);
}

// The responder samples answers with its own RNG: a flood on one name from
// one prefix, as the shipped defaults count it, gets about its burst.
TEST_F(ResponderRrlTest, TheShippedDefaultsLimitAFlood) {
  RateLimiter rrl({.slip = 0});
  Responder responder{ResponderOptions{}, 1, &rrl};
  testing::Query q;
  q.Edns();
  const std::vector<uint8_t> query = testing::Build(q);
  std::vector<uint8_t> out(4096);
  int answered = 0;
  for (int i = 0; i < 1000; ++i) {
    const QueryMeta meta{*ParseIp("192.0.2.1"), Transport::kUdp, wall_ms_, kT0};
    answered += responder.Respond(state_.get(), nullptr, meta, query, out) > 0;
  }
  EXPECT_GE(answered, 100 - 28);
  EXPECT_LE(answered, 100 + 100);
}

testing::Query Named(const std::string& name, testing::Bytes ecs = {}) {
  testing::Query q;
  q.name = name;
  q.Edns(std::move(ecs));
  return q;
}

// A resolver's /24 asking other names, or the same name for other client
// subnets, is not limited by one name's budget being spent.
TEST_F(ResponderRrlTest, OtherNamesAndSubnetsHaveTheirOwnBudget) {
  const auto www = Named("www.example.test", testing::Ecs("113.108.1.0", 24));
  for (int i = 0; i < 2; ++i)
    Ask("192.0.2.1", Transport::kUdp, kT0, nullptr, www);
  EXPECT_EQ(Ask("192.0.2.1", Transport::kUdp, kT0, nullptr, www), 0u);
  EXPECT_TRUE(info_.rrl_limited);
  EXPECT_GT(Ask("192.0.2.1", Transport::kUdp, kT0, nullptr,
                Named("api.example.test", testing::Ecs("113.108.1.0", 24))),
            0u);
  EXPECT_FALSE(info_.rrl_limited);
  EXPECT_GT(Ask("192.0.2.1", Transport::kUdp, kT0, nullptr,
                Named("www.example.test", testing::Ecs("123.125.114.0", 24))),
            0u);
  EXPECT_FALSE(info_.rrl_limited);
}

// Random names under one zone share the zone's NXDOMAIN budget.
TEST_F(ResponderRrlTest, ARandomSubdomainFloodSharesOneBudget) {
  int limited = 0;
  for (int i = 0; i < 50; ++i) {
    Ask("192.0.2.1", Transport::kUdp, kT0, nullptr,
        Named("r" + std::to_string(i) + ".example.test"));
    if (!info_.rrl_limited) {
      EXPECT_EQ(info_.rcode, kRcodeNxDomain);
    }
    limited += info_.rrl_limited;
  }
  EXPECT_EQ(limited, 48);
  // Answers from the same prefix are another budget.
  EXPECT_GT(Ask("192.0.2.1", Transport::kUdp, kT0), 0u);
  EXPECT_FALSE(info_.rrl_limited);
}

// The limiter runs on the monotonic clock: the wall clock stepping back an
// hour (an NTP correction) limits nobody.
TEST_F(ResponderRrlTest, AWallClockStepLimitsNobody) {
  for (int i = 0; i < 20; ++i) {
    wall_ms_ += i % 2 ? 3'600'000 : -3'600'000;
    EXPECT_GT(Ask("192.0.2.1", Transport::kUdp, kT0 + i * 600 * kMs), 0u) << i;
    EXPECT_FALSE(info_.rrl_limited) << i;
  }
}

}  // namespace
}  // namespace ax::dns
