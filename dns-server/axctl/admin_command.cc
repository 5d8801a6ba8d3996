// axctl drain / undrain (admin_command.h).
#include "axctl/admin_command.h"

#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "ax/runtime/clock.h"
#include "axctl/cluster.h"
#include "axctl/for_flag.h"
#include "axctl/output.h"
#include "axctl/wait.h"

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

std::string ConditionLine(const json* c) {
  if (!c) return "waiting for the operator to see the change";
  return "Drained " + c->value("status", "?") + " " + c->value("reason", "") +
         ": " + c->value("message", "");
}

// Polls the Node until its status describes the patched generation and says
// Drained True; false at the timeout.
bool WaitDrained(kube::Client& client, const kube::Resource& node,
                 std::chrono::milliseconds timeout, json& last) {
  const int64_t generation = IntAt(last, "metadata", "generation");
  return PollUntil(client, node, timeout, last, [&](const json& now) {
    const bool current =
        IntAt(now, "status", "observedGeneration") >= generation;
    const json* c = current ? ConditionOf(now, "Drained") : nullptr;
    return Progress{c && c->value("status", "") == "True", ConditionLine(c)};
  });
}

}  // namespace

int AdminStateCommand(const Args& args, bool drain) {
  const char* verb = drain ? "drain" : "undrain";
  const auto format = OutputFormatOf(args, verb);
  if (args.positional.size() != 1 || !format) {
    std::cerr << "usage:\n" << kAdminUsage;
    return 2;
  }
  const std::optional<json> spec =
      SpecPatch(args, drain, runtime::WallMs(), verb);
  const auto timeout =
      TimeoutOf(args, verb, std::chrono::milliseconds(600'000));
  if (!spec || !timeout) return 2;
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
    drained = WaitDrained(*cluster->kube.client, node, *timeout, object);
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
