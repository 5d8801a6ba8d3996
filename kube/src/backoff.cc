// Exponential backoff with jitter (backoff.h).
#include "ax/kube/backoff.h"

#include <algorithm>
#include <memory>
#include <random>

namespace ax::kube {

Random SeededRandom(uint64_t seed) {
  auto engine = std::make_shared<std::mt19937_64>(seed);
  return [engine] {
    return std::uniform_real_distribution<double>(0.0, 1.0)(*engine);
  };
}

Random OsSeededRandom() {
  std::random_device device;
  return SeededRandom((uint64_t{device()} << 32) ^ device());
}

Backoff::Backoff(BackoffPolicy policy, Random random)
    : policy_(policy), random_(std::move(random)), base_(policy.initial) {}

std::chrono::milliseconds Backoff::Next() {
  const std::chrono::milliseconds base = base_;
  const auto grown =
      std::chrono::duration<double, std::milli>(base) * policy_.factor;
  base_ =
      std::min(policy_.max,
               std::chrono::duration_cast<std::chrono::milliseconds>(grown));
  const double stretch = 1.0 + policy_.jitter * (2.0 * random_() - 1.0);
  return std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::duration<double, std::milli>(base) * stretch);
}

}  // namespace ax::kube
