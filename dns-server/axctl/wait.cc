// TimeoutOf and PollUntil (wait.h).
#include "axctl/wait.h"

#include <iostream>
#include <thread>

#include "ax/runtime/config_values.h"

namespace ax {

using nlohmann::json;

std::optional<std::chrono::milliseconds> TimeoutOf(
    const Args& args, std::string_view verb,
    std::chrono::milliseconds fallback) {
  if (!args.Has("--timeout")) return fallback;
  std::chrono::milliseconds timeout{};
  std::string error;
  if (!runtime::ParseDuration(args.Get("--timeout"), &timeout, &error)) {
    std::cerr << verb << ": --timeout: " << error << "\n";
    return std::nullopt;
  }
  return timeout;
}

bool PollUntil(kube::Client& client, const kube::Resource& object,
               std::chrono::milliseconds timeout, json& last,
               const std::function<Progress(const json&)>& check) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string said;
  while (true) {
    if (auto got = client.Get(object)) last = *got;
    const Progress p = check(last);
    if (p.line != said) std::cerr << p.line << "\n";
    said = p.line;
    if (p.done) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}

const json* ConditionOf(const json& object, std::string_view type) {
  auto s = object.find("status");
  if (s == object.end() || !s->is_object()) return nullptr;
  auto c = s->find("conditions");
  if (c == s->end() || !c->is_array()) return nullptr;
  for (const json& condition : *c) {
    if (condition.is_object() && condition.value("type", "") == type) {
      return &condition;
    }
  }
  return nullptr;
}

int64_t IntAt(const json& object, const char* part, const char* key) {
  auto p = object.find(part);
  if (p == object.end() || !p->is_object()) return -1;
  auto v = p->find(key);
  return v != p->end() && v->is_number_integer() ? v->get<int64_t>() : -1;
}

}  // namespace ax
