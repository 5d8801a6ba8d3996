// MergeConditions (conditions.h). Times are RFC 3339 seconds, the precision
// metav1.Time serialises with.
#include "ax/controller/conditions.h"

#include <algorithm>

#include "ax/enum_names.h"
#include "ax/rfc3339.h"

namespace ax::controller {
namespace {

using nlohmann::json;

constexpr NameTable<ConditionStatus, 3> kStatusNames{{
    {ConditionStatus::kTrue, "True"},
    {ConditionStatus::kFalse, "False"},
    {ConditionStatus::kUnknown, "Unknown"},
}};

// The current condition of `type`, or nullptr.
const json* FindCondition(const json* current, const std::string& type) {
  if (!current || !current->is_array()) return nullptr;
  for (const json& c : *current) {
    if (c.is_object() && c.value("type", json()) == type) return &c;
  }
  return nullptr;
}

}  // namespace

const char* ConditionStatusName(ConditionStatus status) {
  return NameOf(kStatusNames, status);
}

json MergeConditions(const json* current, const std::vector<Condition>& desired,
                     int64_t generation, int64_t now_ms) {
  json out = json::array();
  for (const Condition& d : desired) {
    const char* status = ConditionStatusName(d.status);
    std::string since = FormatRfc3339Seconds(now_ms);
    if (const json* before = FindCondition(current, d.type);
        before && before->value("status", json()) == status &&
        before->contains("lastTransitionTime") &&
        (*before)["lastTransitionTime"].is_string()) {
      since = (*before)["lastTransitionTime"].get<std::string>();
    }
    out.push_back({{"type", d.type},
                   {"status", status},
                   {"observedGeneration", generation},
                   {"lastTransitionTime", since},
                   {"reason", d.reason},
                   {"message", d.message}});
  }
  if (current && current->is_array()) {
    for (const json& c : *current) {
      const bool ours =
          c.is_object() &&
          std::any_of(desired.begin(), desired.end(), [&](const Condition& d) {
            return c.value("type", json()) == d.type;
          });
      if (!ours) out.push_back(c);
    }
  }
  return out;
}

}  // namespace ax::controller
