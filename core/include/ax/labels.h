// Kubernetes label selectors: whether a label set satisfies matchLabels and
// matchExpressions, and the selector's text in the apimachinery syntax
// ("isp=unicom,tier in (edge,pop),!canary"). One definition for every selector
// Ax reads (Domain nodeSelector's matchLabels, Region vantageSelector).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

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

enum class SelectorOperator : uint8_t { kIn, kNotIn, kExists, kDoesNotExist };

// One entry of matchExpressions (metav1.LabelSelectorRequirement): values are
// non-empty for In and NotIn and empty for Exists and DoesNotExist (checked
// where the manifest is read).
struct LabelRequirement {
  std::string key;
  SelectorOperator op = SelectorOperator::kIn;
  std::vector<std::string> values;
  bool operator==(const LabelRequirement&) const = default;
};

struct LabelSelector {
  Labels match_labels;
  std::vector<LabelRequirement> match_expressions;
  bool operator==(const LabelSelector&) const = default;
};

// matchLabels and every requirement hold (NotIn and DoesNotExist hold for a
// missing key, as in Kubernetes).
bool Matches(const LabelSelector& selector, const Labels& labels);

// "a=1,b in (x,y),c notin (z),d,!e": matchLabels first, then the
// requirements in their order, values sorted.
std::string SelectorText(const LabelSelector& selector);

const char* SelectorOperatorName(SelectorOperator op);
std::optional<SelectorOperator> ParseSelectorOperator(std::string_view name);

}  // namespace ax
