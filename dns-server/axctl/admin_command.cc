// axctl drain / undrain (admin_command.h).
#include "axctl/admin_command.h"

#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>

#include "ax/runtime/config_values.h"
#include "axctl/cluster.h"
#include "axctl/for_flag.h"
#include "axctl/output.h"

namespace ax {

const char kAdminUsage[] =
    "  axctl drain NODE [--for 2h] [--reason TEXT] [--wait [--timeout 10m]]\n"
    "                                         leave NODE out of new answers "
    "(adminState\n"
    "                                         Drain), for a while; --wait "
    "until no cached\n"
    "                                         answer names it (condition "
    "Drained)\n"
    "  axctl undrain NODE                     answer NODE again (adminState "
    "Active)\n"
    "      both: [-n NS] [--kubeconfig F] [-o json|yaml]; e.g.\n"
    "      axctl drain gz-01 --for 2h --reason INC-1234 --wait\n";

namespace {

using nlohmann::json;

// The spec patch; nullopt after saying what is wrong with a flag.
std::optional<json> SpecPatch(const Args& args, bool drain, int64_t now_ms,
                              const char* verb) {
  json spec = {{"adminState", drain ? "Drain" : "Active"},
               {"adminStateExpiresAt", nullptr},
               {"adminStateReason", nullptr}};
  if (!drain) {
    if (args.Has("--for") || args.Has("--reason") || args.Has("--wait")) {
      std::cerr << verb << ": --for, --reason and --wait are drain's\n";
      return std::nullopt;
    }
    return spec;
  }
  if (args.Has("--for")) {
    const std::optional<std::string> until = EndOfFor(args, verb, now_ms);
    if (!until) return std::nullopt;
    spec["adminStateExpiresAt"] = *until;
  }
  if (args.Has("--reason")) spec["adminStateReason"] = args.Get("--reason");
  return spec;
}

// The Node's condition `type`, or null.
const json* ConditionOf(const json& node, const std::string& type) {
  const json* conditions = nullptr;
  if (auto s = node.find("status"); s != node.end() && s->is_object()) {
    if (auto c = s->find("conditions"); c != s->end() && c->is_array()) {
      conditions = &*c;
    }
  }
  if (!conditions) return nullptr;
  for (const json& c : *conditions) {
    if (c.is_object() && c.value("type", "") == type) return &c;
  }
  return nullptr;
}

std::string ConditionLine(const json* c) {
  if (!c) return "waiting for the operator to see the change";
  return "Drained " + c->value("status", "?") + " " + c->value("reason", "") +
         ": " + c->value("message", "");
}

int64_t IntAt(const json& object, const char* part, const char* key) {
  auto p = object.find(part);
  if (p == object.end() || !p->is_object()) return -1;
  auto v = p->find(key);
  return v != p->end() && v->is_number_integer() ? v->get<int64_t>() : -1;
}

// Polls the Node until its status describes the patched generation and says
// Drained True; false at the timeout.
bool WaitDrained(kube::Client& client, const kube::Resource& node,
                 std::chrono::milliseconds timeout, json& last) {
  const int64_t generation = IntAt(last, "metadata", "generation");
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string said;
  while (true) {
    if (auto got = client.Get(node)) last = *got;
    const bool current =
        IntAt(last, "status", "observedGeneration") >= generation;
    const json* c = current ? ConditionOf(last, "Drained") : nullptr;
    const std::string line = ConditionLine(c);
    if (line != said) std::cerr << line << "\n";
    said = line;
    if (c && c->value("status", "") == "True") return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}

}  // namespace

int AdminStateCommand(const Args& args, bool drain) {
  const char* verb = drain ? "drain" : "undrain";
  const auto format = OutputFormatOf(args, verb);
  if (args.positional.size() != 1 || !format) {
    std::cerr << "usage:\n" << kAdminUsage;
    return 2;
  }
  const std::optional<json> spec = SpecPatch(args, drain, WallClockMs(), verb);
  std::chrono::milliseconds timeout{600'000};
  if (args.Has("--timeout")) {
    std::string error;
    if (!runtime::ParseDuration(args.Get("--timeout"), &timeout, &error)) {
      std::cerr << verb << ": --timeout: " << error << "\n";
      return 2;
    }
  }
  if (!spec) return 2;
  std::optional<Cluster> cluster = ConnectCluster(args, verb);
  if (!cluster) return 1;
  const std::string& name = args.positional[0];
  const kube::Resource node = AxCollection("Node", cluster->ns).Named(name);
  auto patched = cluster->kube.client->MergePatch(node, {{"spec", *spec}});
  if (!patched) {
    std::cerr << verb << ": node " << name << " in namespace " << cluster->ns
              << ": " << patched.error().ToString() << "\n";
    return 1;
  }
  json object = *patched;
  if (*format == OutputFormat::kText) {
    std::cout << "node/" << name << ": adminState "
              << (*spec)["adminState"].get<std::string>();
    if ((*spec)["adminStateExpiresAt"].is_string()) {
      std::cout << " until "
                << (*spec)["adminStateExpiresAt"].get<std::string>();
    }
    if ((*spec)["adminStateReason"].is_string()) {
      std::cout << " (" << (*spec)["adminStateReason"].get<std::string>()
                << ")";
    }
    std::cout << "\n";
  }
  bool drained = true;
  if (args.Has("--wait")) {
    drained = WaitDrained(*cluster->kube.client, node, timeout, object);
    if (!drained) {
      std::cerr << verb << ": not Drained within " << args.Get("--timeout")
                << (args.Has("--timeout") ? "" : "10m") << "\n";
    } else if (*format == OutputFormat::kText) {
      std::cout << "node/" << name << ": drained\n";
    }
  }
  PrintAs(*format, object);
  return drained ? 0 : 1;
}

}  // namespace ax
