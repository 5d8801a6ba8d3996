// Median of a sample, shared by the quorum (the vantages' latencies) and the
// geo override suggestions (client timings per node). Pure.
#pragma once

#include <algorithm>
#include <optional>
#include <vector>

namespace ax {

// The middle value, or the mean of the two middle ones; nullopt when empty.
inline std::optional<double> Median(std::vector<double> values) {
  if (values.empty()) return std::nullopt;
  std::sort(values.begin(), values.end());
  const size_t mid = values.size() / 2;
  if (values.size() % 2 == 1) return values[mid];
  return (values[mid - 1] + values[mid]) / 2;
}

}  // namespace ax
