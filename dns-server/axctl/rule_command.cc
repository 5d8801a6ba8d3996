// axctl pin / exclude / weight (rule_command.h).
#include "axctl/rule_command.h"

#include <cctype>
#include <fstream>
#include <iostream>

#include "ax/api_kinds.h"
#include "ax/runtime/clock.h"
#include "ax/runtime/config_values.h"
#include "axctl/cluster.h"
#include "axctl/for_flag.h"
#include "axctl/output.h"
#include "axctl/yaml_out.h"

namespace ax {

const char kRuleUsage[] =
    "  axctl pin NODE --domain D [--region R] [--isp I] --for 1h "
    "[--reason TEXT]\n"
    "  axctl exclude NODE --domain D [--region R] [--isp I] --for 1h "
    "[--reason TEXT]\n"
    "  axctl weight NODE W --domain D [--region R] [--isp I] --for 1h "
    "[--reason TEXT]\n"
    "                                         an expiring Rule: answer only "
    "NODE, never NODE,\n"
    "                                         or NODE at weight W, for "
    "those clients\n"
    "      all: [--name N] ([-n NS] [--kubeconfig F] | --manifests DIR) "
    "[-o json|yaml]\n";

namespace {

using Json = nlohmann::ordered_json;

constexpr char kManagedBy[] = "axctl";

// A DNS-1123 name from the parts: lowercase, '-' for anything else, at most
// 253 characters.
std::string RuleName(RuleAction action, const std::string& node,
                     const std::string& domain, const std::string& region,
                     const std::string& isp) {
  std::string name = std::string(RuleActionName(action)) + "-" + node + "-" +
                     domain + (region.empty() ? "" : "-" + region) +
                     (isp.empty() ? "" : "-" + isp);
  for (char& c : name) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.') c = '-';
  }
  return name.substr(0, 253);
}

const char* VerbOf(RuleAction action) {
  switch (action) {
    case RuleAction::kPin:
      return "pin";
    case RuleAction::kExclude:
      return "exclude";
    case RuleAction::kWeight:
      break;
  }
  return "weight";
}

}  // namespace

std::optional<Json> RuleFromFlags(const Args& args, RuleAction action,
                                  int64_t now_ms) {
  const char* verb = VerbOf(action);
  const size_t want = action == RuleAction::kWeight ? 2 : 1;
  if (args.positional.size() != want || !args.Has("--domain")) {
    std::cerr << "usage:\n" << kRuleUsage;
    return std::nullopt;
  }
  if (!args.Has("--for")) {
    std::cerr << verb << ": --for is required (a Rule here always expires)\n";
    return std::nullopt;
  }
  const std::optional<std::string> until = EndOfFor(args, verb, now_ms);
  if (!until) return std::nullopt;
  const std::string& node = args.positional[0];
  const std::string region = args.Get("--region");
  const std::string isp = args.Get("--isp");
  Json spec = {{"domain", args.Get("--domain")}};
  if (!region.empty()) spec["match"]["region"] = region;
  if (!isp.empty()) spec["match"]["isp"] = isp;
  spec["action"] = RuleActionName(action);
  spec["node"] = node;
  if (action == RuleAction::kWeight) {
    int64_t weight = 0;
    std::string error;
    if (!runtime::ParseInt(args.positional[1], 1, UINT32_MAX, &weight,
                           &error)) {
      std::cerr << verb << ": W: " << error << "\n";
      return std::nullopt;
    }
    spec["weight"] = weight;
  }
  spec["expiresAt"] = *until;
  if (args.Has("--reason")) spec["reason"] = args.Get("--reason");
  const std::string name =
      args.Has("--name")
          ? args.Get("--name")
          : RuleName(action, node, args.Get("--domain"), region, isp);
  return Json{{"apiVersion", kApiVersion},
              {"kind", "Rule"},
              {"metadata",
               {{"name", name},
                {"labels", {{"app.kubernetes.io/managed-by", kManagedBy}}}}},
              {"spec", spec}};
}

int RuleCommand(const Args& args, RuleAction action) {
  const char* verb = VerbOf(action);
  const auto format = OutputFormatOf(args, verb);
  if (!format) return 2;
  std::optional<Json> rule = RuleFromFlags(args, action, runtime::WallMs());
  if (!rule) return 2;
  const std::string name = (*rule)["metadata"]["name"];
  nlohmann::json written;
  if (args.Has("--manifests")) {
    // ax-dns --standalone reloads the folder; the file is this Rule's alone.
    const std::string path =
        args.Get("--manifests") + "/axctl-rule-" + name + ".yaml";
    std::ofstream out(path, std::ios::trunc);
    out << YamlDocument(*rule);
    if (!out.flush()) {
      std::cerr << verb << ": cannot write " << path << "\n";
      return 1;
    }
    written = nlohmann::json::parse(rule->dump());
    if (*format == OutputFormat::kText) {
      std::cout << "rule/" << name << " written to " << path << "\n";
    }
  } else {
    std::optional<Cluster> cluster = ConnectCluster(args, verb);
    if (!cluster) return 1;
    (*rule)["metadata"]["namespace"] = cluster->ns;
    kube::ApplyOptions apply;
    apply.field_manager = kManagedBy;
    apply.force = true;
    auto applied = cluster->kube.client->Apply(
        AxCollection("Rule", cluster->ns).Named(name),
        nlohmann::json::parse(rule->dump()), apply);
    if (!applied) {
      std::cerr << verb << ": rule " << name << " in namespace " << cluster->ns
                << ": " << applied.error().ToString() << "\n";
      return 1;
    }
    written = *applied;
    if (*format == OutputFormat::kText) {
      std::cout << "rule/" << name << " applied\n";
    }
  }
  if (*format == OutputFormat::kText) {
    const Json& spec = (*rule)["spec"];
    std::cout << "  " << spec["action"].get<std::string>() << " "
              << spec["node"].get<std::string>() << " for Domain "
              << spec["domain"].get<std::string>();
    if (spec.contains("match") && spec["match"].contains("region")) {
      std::cout << ", Region " << spec["match"]["region"].get<std::string>();
    }
    if (spec.contains("match") && spec["match"].contains("isp")) {
      std::cout << ", ISP " << spec["match"]["isp"].get<std::string>();
    }
    std::cout << " until " << spec["expiresAt"].get<std::string>() << "\n";
  }
  PrintAs(*format, written);
  return 0;
}

}  // namespace ax
