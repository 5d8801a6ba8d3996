// Label selectors (labels.h): matching and the apimachinery text form.
#include "ax/labels.h"

#include <algorithm>

#include "ax/enum_names.h"

namespace ax {
namespace {

constexpr NameTable<SelectorOperator, 4> kOperators{{
    {SelectorOperator::kIn, "In"},
    {SelectorOperator::kNotIn, "NotIn"},
    {SelectorOperator::kExists, "Exists"},
    {SelectorOperator::kDoesNotExist, "DoesNotExist"},
}};

bool Holds(const LabelRequirement& r, const Labels& labels) {
  auto it = labels.find(r.key);
  const bool has = it != labels.end();
  const bool listed = has && std::find(r.values.begin(), r.values.end(),
                                       it->second) != r.values.end();
  switch (r.op) {
    case SelectorOperator::kIn:
      return listed;
    case SelectorOperator::kNotIn:
      return !listed;
    case SelectorOperator::kExists:
      return has;
    case SelectorOperator::kDoesNotExist:
      return !has;
  }
  return false;
}

std::string ValueList(std::vector<std::string> values) {
  std::sort(values.begin(), values.end());
  std::string out = "(";
  for (const std::string& v : values) out += (out.size() > 1 ? "," : "") + v;
  return out + ")";
}

}  // namespace

bool Matches(const LabelSelector& selector, const Labels& labels) {
  return MatchesLabels(selector.match_labels, labels) &&
         std::all_of(
             selector.match_expressions.begin(),
             selector.match_expressions.end(),
             [&](const LabelRequirement& r) { return Holds(r, labels); });
}

std::string SelectorText(const LabelSelector& selector) {
  std::string out;
  auto add = [&out](const std::string& part) {
    out += (out.empty() ? "" : ",") + part;
  };
  for (const auto& [key, value] : selector.match_labels) add(key + "=" + value);
  for (const LabelRequirement& r : selector.match_expressions) {
    switch (r.op) {
      case SelectorOperator::kIn:
        add(r.key + " in " + ValueList(r.values));
        break;
      case SelectorOperator::kNotIn:
        add(r.key + " notin " + ValueList(r.values));
        break;
      case SelectorOperator::kExists:
        add(r.key);
        break;
      case SelectorOperator::kDoesNotExist:
        add("!" + r.key);
        break;
    }
  }
  return out;
}

const char* SelectorOperatorName(SelectorOperator op) {
  return NameOf(kOperators, op);
}

std::optional<SelectorOperator> ParseSelectorOperator(std::string_view name) {
  return ValueOf(kOperators, name);
}

}  // namespace ax
