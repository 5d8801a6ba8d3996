// Backoff doubles from 0.8 s to 30 s with jitter drawn from the injected
// source, and starts over after Reset; watch timeouts spread over 300-600 s.
#include "ax/kube/backoff.h"

#include <gtest/gtest.h>

#include <vector>

#include "ax/kube/reflector.h"

namespace ax::kube {
namespace {

using std::chrono::milliseconds;

Random Fixed(double value) {
  return [value] { return value; };
}

TEST(BackoffTest, DoublesUpToTheCapWithoutJitterAtTheMidpoint) {
  Backoff backoff(BackoffPolicy{}, Fixed(0.5));  // stretch factor exactly 1
  std::vector<int64_t> delays;
  for (int i = 0; i < 9; ++i) delays.push_back(backoff.Next().count());
  EXPECT_EQ(delays, (std::vector<int64_t>{800, 1600, 3200, 6400, 12800, 25600,
                                          30000, 30000, 30000}));
  backoff.Reset();
  EXPECT_EQ(backoff.Next(), milliseconds(800));
}

TEST(BackoffTest, JitterStaysWithinTwentyPercent) {
  Backoff low(BackoffPolicy{}, Fixed(0.0));
  Backoff high(BackoffPolicy{}, Fixed(0.999999));
  EXPECT_EQ(low.Next(), milliseconds(640));
  EXPECT_EQ(high.Next(), milliseconds(959));
  for (int i = 0; i < 10; ++i) {
    low.Next();
    high.Next();
  }
  EXPECT_EQ(low.Next(), milliseconds(24000));
  EXPECT_EQ(high.Next(), milliseconds(35999));
}

TEST(BackoffTest, SeededRandomIsReproducibleAndInRange) {
  Random a = SeededRandom(42), b = SeededRandom(42);
  for (int i = 0; i < 1000; ++i) {
    const double x = a();
    EXPECT_EQ(x, b());
    EXPECT_GE(x, 0.0);
    EXPECT_LT(x, 1.0);
  }
}

TEST(WatchTimeoutTest, SpreadsOverTheWholeRange) {
  EXPECT_EQ(RandomWatchTimeout(Fixed(0.0), 300, 600), 300);
  EXPECT_EQ(RandomWatchTimeout(Fixed(0.5), 300, 600), 450);
  EXPECT_EQ(RandomWatchTimeout(Fixed(0.999999), 300, 600), 600);
  EXPECT_EQ(RandomWatchTimeout(Fixed(0.7), 5, 5), 5);
  Random random = SeededRandom(7);
  int lowest = 1000, highest = 0;
  for (int i = 0; i < 5000; ++i) {
    const int t = RandomWatchTimeout(random, 300, 600);
    lowest = std::min(lowest, t);
    highest = std::max(highest, t);
  }
  EXPECT_EQ(lowest, 300);
  EXPECT_EQ(highest, 600);
}

}  // namespace
}  // namespace ax::kube
