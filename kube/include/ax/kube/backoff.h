// Waiting between failed attempts against the apiserver: exponential backoff
// (0.8 s doubling to 30 s, as client-go's reflector) with random jitter so
// that many replicas do not retry in step. The randomness is injected (a
// uniform [0, 1) source); tests pass a fixed sequence.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>

namespace ax::kube {

// Uniform in [0, 1).
using Random = std::function<double()>;

// A Random over a 64-bit Mersenne Twister seeded with `seed`. Like the
// engine, not thread-safe: one per thread of use.
Random SeededRandom(uint64_t seed);
// A Random seeded from the OS entropy source.
Random OsSeededRandom();

struct BackoffPolicy {
  std::chrono::milliseconds initial{800};
  std::chrono::milliseconds max{30000};
  double factor = 2.0;
  // Each delay is stretched or shrunk by up to this fraction of itself, so
  // a delay at the cap lies in [24 s, 36 s).
  double jitter = 0.2;
};

class Backoff {
 public:
  Backoff(BackoffPolicy policy, Random random);

  // The delay before the next attempt; each call doubles the base (up to
  // the max) for the one after.
  std::chrono::milliseconds Next();
  // After a success: the next failure waits `initial` again.
  void Reset() { base_ = policy_.initial; }

 private:
  const BackoffPolicy policy_;
  const Random random_;
  std::chrono::milliseconds base_;
};

}  // namespace ax::kube
