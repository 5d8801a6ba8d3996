// The Drained condition and status.leftAnswersAt (node_drain.h).
#include "node_drain.h"

#include <algorithm>
#include <string>

#include "ax/labels.h"
#include "ax/rfc3339.h"

namespace ax::controller {
namespace {

std::optional<uint32_t> IndexOf(const Snapshot& s, const std::string& name) {
  for (uint32_t i = 0; i < s.nodes.size(); ++i) {
    if (s.nodes[i].name == name) return i;
  }
  return std::nullopt;
}

Condition Drained(ConditionStatus status, std::string reason,
                  std::string message) {
  return {kDrainedCondition, status, std::move(reason), std::move(message)};
}

}  // namespace

bool NamedInAnswers(const Snapshot& s, uint32_t node) {
  return std::any_of(s.routes.begin(), s.routes.end(), [&](const Route& r) {
    if (r.canary != kNoIndex && r.canary < s.canaries.size() &&
        s.canaries[r.canary].node == node) {
      return true;
    }
    return std::any_of(r.candidates.begin(), r.candidates.end(),
                       [&](const Candidate& c) { return c.node == node; });
  });
}

uint32_t LongestTtlFor(const World& world, const Node& node) {
  uint32_t longest = 0;
  for (const Domain& d : world.domains) {
    if (!MatchesLabels(d.node_selector, node.meta.labels)) continue;
    longest = std::max({longest, d.ttl.steady, d.ttl.failover, d.ttl.canary});
  }
  return longest;
}

DrainStatus PlanDrain(const Node& spec, const Snapshot* in_force,
                      uint32_t longest_ttl_s, const nlohmann::json* current,
                      int64_t now_ms) {
  DrainStatus out;
  const std::optional<uint32_t> index =
      in_force ? IndexOf(*in_force, spec.meta.name) : std::nullopt;
  const bool named = index && NamedInAnswers(*in_force, *index);
  if (!named && in_force) {
    std::optional<int64_t> since;
    if (current && current->is_object()) {
      if (auto it = current->find("leftAnswersAt");
          it != current->end() && it->is_string()) {
        since = ParseRfc3339Ms(it->get<std::string>());
      }
    }
    // Never in the future: a clock that stepped back would otherwise hold
    // the node "expiring" for longer than any cache keeps an answer.
    out.left_answers_ms = since ? std::min(*since, now_ms) : now_ms;
  }

  const AdminState admin_state = spec.AdminStateAt(now_ms);
  if (admin_state == AdminState::kActive) {
    out.drained = Drained(ConditionStatus::kFalse, "NotDraining",
                          "adminState Active: answered as usual");
    return out;
  }
  const std::string state = AdminStateName(admin_state);
  if (!out.left_answers_ms) {
    out.drained =
        Drained(ConditionStatus::kFalse, "InAnswers",
                "adminState " + state +
                    (in_force ? ", but the table ax-dns serves still names it"
                              : ", but no table has been published yet"));
    return out;
  }
  const int64_t expires = *out.left_answers_ms + int64_t{longest_ttl_s} * 1000;
  const std::string since = FormatRfc3339Seconds(*out.left_answers_ms);
  if (now_ms < expires) {
    out.drained =
        Drained(ConditionStatus::kFalse, "CachesExpiring",
                "out of answers since " + since +
                    "; resolvers may hand out cached answers naming it until " +
                    FormatRfc3339Seconds(expires) + " (TTL " +
                    std::to_string(longest_ttl_s) + " s)");
    out.wake_ms = expires;
    return out;
  }
  out.drained = Drained(
      ConditionStatus::kTrue, "Drained",
      "out of answers since " + since + " and the longest TTL (" +
          std::to_string(longest_ttl_s) +
          " s) has passed: no cache names it; clients that resolve only on "
          "connection trouble (gRPC) still hold connections: close them");
  return out;
}

}  // namespace ax::controller
