// axctl's --wait: polling one object until the operator's status says the
// change took effect, saying each new state on stderr, and the --timeout flag
// it stops at. What "took effect" means is the verb's.
#pragma once

#include <chrono>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "ax/kube/client.h"
#include "axctl/args.h"

namespace ax {

// --timeout as a duration (`fallback` when absent); nullopt after saying why.
std::optional<std::chrono::milliseconds> TimeoutOf(
    const Args& args, std::string_view verb,
    std::chrono::milliseconds fallback);

// What a verb's check says of the object: done, and a line for people.
struct Progress {
  bool done = false;
  std::string line;
};

// Gets `object` every second (into `last`) until `check` says done: true, or
// false at the timeout. Each line that differs from the one before is printed.
bool PollUntil(kube::Client& client, const kube::Resource& object,
               std::chrono::milliseconds timeout, nlohmann::json& last,
               const std::function<Progress(const nlohmann::json&)>& check);

// The object's status.conditions[type], or null.
const nlohmann::json* ConditionOf(const nlohmann::json& object,
                                  std::string_view type);

// object[part][key] as an integer, or -1.
int64_t IntAt(const nlohmann::json& object, const char* part, const char* key);

}  // namespace ax
