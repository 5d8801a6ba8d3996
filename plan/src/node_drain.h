// Internal to plan/src: whether a node taken out of answers is safe to take
// down (the Node condition Drained, for `kubectl wait
// --for=condition=Drained`). A node left the answers when the table ax-dns
// serves stopped naming it; answers naming it stay in resolvers' caches for at
// most the longest TTL its Domains answer with (RFC 1035 §3.2.1: TTL bounds
// caching; RFC 2308 does not apply, these are positive answers). Pure: table,
// world, status and clock in.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>

#include "ax/controller/conditions.h"
#include "ax/model.h"
#include "ax/snapshot.h"

namespace ax::controller {

inline constexpr char kDrainedCondition[] = "Drained";

// Whether node index `node` of `s` can be in an answer: a candidate of some
// route, or the canary node of a route.
bool NamedInAnswers(const Snapshot& s, uint32_t node);

// The longest TTL (seconds) any Domain whose nodeSelector selects `node`
// answers with (steady, failover or canary).
uint32_t LongestTtlFor(const World& world, const Node& node);

struct DrainStatus {
  // status.leftAnswersAt: since when the served table names the node nowhere
  // (kept from the current status while that holds); absent while named.
  std::optional<int64_t> left_answers_ms;
  Condition drained;
  // When `drained` turns True, if that is still ahead: the plan wakes then.
  std::optional<int64_t> wake_ms;
};

// `in_force`: the table ax-dns serves (null before the first); `current`: the
// Node's status as read (null: none).
DrainStatus PlanDrain(const Node& spec, const Snapshot* in_force,
                      uint32_t longest_ttl_s, const nlohmann::json* current,
                      int64_t now_ms);

}  // namespace ax::controller
