// Kubernetes matchLabels: whether a label set satisfies a selector. One
// definition for every selector Ax reads (Domain nodeSelector, Region
// vantageSelector).
#pragma once

#include <map>
#include <string>

namespace ax {

using Labels = std::map<std::string, std::string>;

// Every key of `selector` is in `labels` with the same value; an empty
// selector matches everything.
inline bool MatchesLabels(const Labels& selector, const Labels& labels) {
  for (const auto& [key, value] : selector) {
    auto it = labels.find(key);
    if (it == labels.end() || it->second != value) return false;
  }
  return true;
}

}  // namespace ax
