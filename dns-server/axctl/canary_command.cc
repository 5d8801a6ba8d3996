// axctl canary (canary_command.h).
#include "axctl/canary_command.h"

#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "ax/controller/canary_control.h"
#include "axctl/cluster.h"
#include "axctl/output.h"
#include "axctl/wait.h"

namespace ax {

const char kCanaryUsage[] =
    "  axctl canary pause|resume|abort NAME   hold a Canary at its step / go "
    "on with what\n"
    "                                         was left of its pause / take "
    "its share back\n"
    "  axctl canary promote NAME [--full]     its next step now (--full: its "
    "last step)\n"
    "      all: [--wait [--timeout 2m]] [-n NS] [--kubeconfig F] [-o "
    "json|yaml]\n";

namespace {

using controller::kCanaryAbortAnnotation;
using controller::kCanaryPausedAnnotation;
using controller::kCanaryPromoteAnnotation;
using nlohmann::json;

enum class Request { kPause, kResume, kPromote, kAbort };

std::optional<Request> RequestOf(const std::string& word) {
  if (word == "pause") return Request::kPause;
  if (word == "resume") return Request::kResume;
  if (word == "promote") return Request::kPromote;
  if (word == "abort") return Request::kAbort;
  return std::nullopt;
}

std::string StatusString(const json& canary, const char* key) {
  const json status = canary.value("status", json::object());
  return status.is_object() && status.value(key, json()).is_string()
             ? status[key].get<std::string>()
             : "";
}

// The annotation (key, value) the request writes; value null removes it.
// nullopt after saying why the request cannot be made of this Canary.
std::optional<std::pair<const char*, json>> AnnotationFor(
    Request request, const json& canary, bool full, uint32_t& promote_step) {
  const int64_t generation = IntAt(canary, "metadata", "generation");
  switch (request) {
    case Request::kPause:
      return std::pair{kCanaryPausedAnnotation, json("true")};
    case Request::kResume:
      return std::pair{kCanaryPausedAnnotation, json(nullptr)};
    case Request::kAbort:
      return std::pair{kCanaryAbortAnnotation,
                       json(std::to_string(generation))};
    case Request::kPromote:
      break;
  }
  const json spec = canary.value("spec", json::object());
  const size_t steps =
      spec.is_object() && spec.value("steps", json()).is_array()
          ? spec["steps"].size()
          : 0;
  const bool current =
      IntAt(canary, "status", "observedGeneration") == generation;
  const std::string phase = current ? StatusString(canary, "phase") : "";
  if (phase == "Succeeded" || phase == "Failed") {
    std::cerr << "canary promote: the rollout is " << phase
              << ": there is no step to move on to (a spec change starts it "
                 "over)\n";
    return std::nullopt;
  }
  const int64_t step = current ? IntAt(canary, "status", "step") : -1;
  // 1-based: the step after the one in force (the first while Pending).
  promote_step = static_cast<uint32_t>(
      full ? steps : std::min<int64_t>(std::max<int64_t>(step, 0) + 2, steps));
  return std::pair{
      kCanaryPromoteAnnotation,
      json(std::to_string(generation) + "/" + std::to_string(promote_step))};
}

// Whether the status shows the request done, for --wait.
bool Shows(Request request, const json& canary, int64_t generation,
           uint32_t promote_step) {
  if (IntAt(canary, "status", "observedGeneration") != generation) {
    return false;
  }
  const std::string phase = StatusString(canary, "phase");
  switch (request) {
    case Request::kPause:
      return phase != "Progressing";
    case Request::kResume:
      return phase != "Paused";
    case Request::kAbort:
      return phase == "Failed";
    case Request::kPromote:
      break;
  }
  return phase == "Succeeded" || phase == "Failed" ||
         IntAt(canary, "status", "step") + 1 >= int64_t{promote_step};
}

std::string StateLine(const json& canary) {
  const std::string phase = StatusString(canary, "phase");
  if (phase.empty()) return "waiting for the operator to see the change";
  const json* ready = ConditionOf(canary, "Ready");
  return phase + ": " + (ready ? ready->value("message", "") : "");
}

}  // namespace

int CanaryCommand(const Args& args) {
  const auto format = OutputFormatOf(args, "canary");
  const std::optional<Request> request =
      args.positional.empty() ? std::nullopt : RequestOf(args.positional[0]);
  if (!request || args.positional.size() != 2 || !format ||
      (args.Has("--full") && *request != Request::kPromote)) {
    std::cerr << "usage:\n" << kCanaryUsage;
    return 2;
  }
  const std::string verb = "canary " + args.positional[0];
  const auto timeout = TimeoutOf(args, verb, std::chrono::minutes(2));
  if (!timeout) return 2;
  std::optional<Cluster> cluster = ConnectCluster(args, verb);
  if (!cluster) return 1;
  const std::string& name = args.positional[1];
  const kube::Resource resource =
      AxCollection("Canary", cluster->ns).Named(name);
  kube::Client& client = *cluster->kube.client;
  auto canary = client.Get(resource);
  if (!canary) {
    std::cerr << verb << ": canary " << name << " in namespace " << cluster->ns
              << ": " << canary.error().ToString() << "\n";
    return 1;
  }
  uint32_t promote_step = 0;
  const auto annotation =
      AnnotationFor(*request, *canary, args.Has("--full"), promote_step);
  if (!annotation) return 1;
  json patch = {{"metadata",
                 {{"annotations", {{annotation->first, annotation->second}}}}}};
  // Abort and promote name the generation read above: the resourceVersion
  // makes the patch fail if the object changed since.
  if (*request == Request::kAbort || *request == Request::kPromote) {
    patch["metadata"]["resourceVersion"] =
        (*canary)["metadata"].value("resourceVersion", "");
  }
  auto patched = client.MergePatch(resource, patch);
  if (!patched) {
    std::cerr << verb << ": canary " << name << " in namespace " << cluster->ns
              << ": " << patched.error().ToString() << "\n";
    return 1;
  }
  json object = *patched;
  if (*format == OutputFormat::kText) {
    std::cout << "canary/" << name << ": " << args.positional[0]
              << " asked (annotation " << annotation->first
              << (annotation->second.is_null()
                      ? " removed"
                      : "=" + annotation->second.get<std::string>())
              << ")\n";
  }
  bool shown = true;
  if (args.Has("--wait")) {
    const int64_t generation = IntAt(object, "metadata", "generation");
    shown = PollUntil(client, resource, *timeout, object, [&](const json& c) {
      return Progress{Shows(*request, c, generation, promote_step),
                      StateLine(c)};
    });
    if (!shown) {
      std::cerr << verb << ": its status did not show it within "
                << (args.Has("--timeout") ? args.Get("--timeout") : "2m")
                << "\n";
    } else if (*format == OutputFormat::kText) {
      std::cout << "canary/" << name << ": " << StateLine(object) << "\n";
    }
  }
  PrintAs(*format, object);
  return shown ? 0 : 1;
}

}  // namespace ax
