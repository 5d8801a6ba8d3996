// axctl rollback (rollback_command.h).
#include "axctl/rollback_command.h"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "ax/controller/object_ref.h"
#include "ax/controller/route_table_plan.h"
#include "ax/route_table_configmap.h"
#include "axctl/cluster.h"
#include "axctl/output.h"
#include "axctl/wait.h"

namespace ax {

const char kRollbackUsage[] =
    "  axctl rollback [--to VERSION] [--wait [--timeout 2m]]\n"
    "                                         serve a kept version's content "
    "again (default:\n"
    "                                         the newest kept one unlike the "
    "served); nothing\n"
    "                                         else is published until "
    "--resume\n"
    "  axctl rollback --list                  the kept versions, the served "
    "content marked\n"
    "  axctl rollback --resume                publish the operator's plan "
    "again\n"
    "      all: [--route-table ax-route-table] [-n NS] [--kubeconfig F] [-o "
    "json|yaml]\n";

namespace {

using controller::kRollbackAnnotation;
using nlohmann::json;

struct Kept {
  uint64_t version = 0;
  std::string content_hash;
  std::string created;
};

// The annotation `key` of `object`, "" when absent.
std::string Annotation(const json& object, const char* key) {
  return controller::AnnotationOf(object, key).value_or("");
}

// The table's kept versions, oldest first.
std::vector<Kept> KeptVersions(const std::vector<json>& items,
                               const std::string& table) {
  std::vector<Kept> kept;
  for (const json& cm : items) {
    const json meta = cm.value("metadata", json::object());
    const std::optional<uint64_t> v =
        ParseHistoryConfigMapName(table, meta.value("name", ""));
    if (!v) continue;
    kept.push_back({*v, Annotation(cm, kContentHashAnnotation),
                    meta.value("creationTimestamp", "")});
  }
  std::sort(kept.begin(), kept.end(),
            [](const Kept& a, const Kept& b) { return a.version < b.version; });
  return kept;
}

json KeptJson(const std::vector<Kept>& kept, const std::string& served_hash) {
  json out = json::array();
  for (const Kept& k : kept) {
    out.push_back({{"version", k.version},
                   {"contentHash", k.content_hash},
                   {"created", k.created},
                   {"serving", k.content_hash == served_hash}});
  }
  return out;
}

// The version --to names, or the newest kept one whose content differs from
// the served; nullopt after saying why there is none.
std::optional<Kept> Target(const Args& args, const std::vector<Kept>& kept,
                           const std::string& served_hash,
                           const std::string& table) {
  if (args.Has("--to")) {
    const std::optional<uint64_t> v = ParseNumber<uint64_t>(args.Get("--to"));
    if (!v) {
      std::cerr << "rollback: --to must be a version number, got \""
                << args.Get("--to") << "\"\n";
      return std::nullopt;
    }
    for (const Kept& k : kept) {
      if (k.version == *v) return k;
    }
    std::cerr << "rollback: version " << *v << " is not kept (ConfigMap "
              << HistoryConfigMapName(table, *v)
              << " not found); axctl rollback --list shows the kept ones\n";
    return std::nullopt;
  }
  for (auto k = kept.rbegin(); k != kept.rend(); ++k) {
    if (k->content_hash != served_hash) return *k;
  }
  std::cerr << "rollback: no kept version differs from the served content ("
            << kept.size() << " kept); nothing to roll back to\n";
  return std::nullopt;
}

void PrintList(const std::vector<Kept>& kept, const std::string& served_hash) {
  std::printf("%-8s %-20s  %s\n", "VERSION", "CREATED", "CONTENT-HASH");
  for (auto k = kept.rbegin(); k != kept.rend(); ++k) {
    std::printf("%-8llu %-20s  %s%s\n",
                static_cast<unsigned long long>(k->version), k->created.c_str(),
                k->content_hash.c_str(),
                k->content_hash == served_hash ? "  (served)" : "");
  }
}

}  // namespace

int RollbackCommand(const Args& args) {
  const auto format = OutputFormatOf(args, "rollback");
  const int modes =
      args.Has("--list") + args.Has("--resume") + args.Has("--to");
  if (!format || !args.positional.empty() || modes > 1 ||
      (args.Has("--wait") && (args.Has("--list") || args.Has("--resume")))) {
    std::cerr << "usage:\n" << kRollbackUsage;
    return 2;
  }
  const auto timeout = TimeoutOf(args, "rollback", std::chrono::minutes(2));
  if (!timeout) return 2;
  std::optional<Cluster> cluster = ConnectCluster(args, "rollback");
  if (!cluster) return 1;
  const std::string table =
      args.Has("--route-table") ? args.Get("--route-table") : "ax-route-table";
  kube::Client& client = *cluster->kube.client;
  const kube::Resource current =
      kube::ConfigMaps().In(cluster->ns).Named(table);
  auto cm = client.Get(current);
  if (!cm) {
    std::cerr << "rollback: ConfigMap " << table << " in namespace "
              << cluster->ns << ": " << cm.error().ToString() << "\n";
    return 1;
  }
  const std::string served_hash = Annotation(*cm, kContentHashAnnotation);
  const std::string served_version =
      Annotation(*cm, kSnapshotVersionAnnotation);
  if (args.Has("--resume")) {
    auto patched = client.MergePatch(
        current,
        {{"metadata", {{"annotations", {{kRollbackAnnotation, nullptr}}}}}});
    if (!patched) {
      std::cerr << "rollback: " << patched.error().ToString() << "\n";
      return 1;
    }
    if (*format == OutputFormat::kText) {
      std::cout << "configmap/" << table << ": annotation "
                << kRollbackAnnotation
                << " removed: the operator publishes its plan again\n";
    }
    PrintAs(*format, {{"routeTable", table}, {"rollbackTo", nullptr}});
    return 0;
  }
  auto history =
      client.List(kube::ConfigMaps().In(cluster->ns),
                  {.label_selector = RouteTableHistorySelector(table)});
  if (!history) {
    std::cerr << "rollback: listing the kept versions of " << table << ": "
              << history.error().ToString() << "\n";
    return 1;
  }
  const std::vector<Kept> kept = KeptVersions(history->items, table);
  if (args.Has("--list")) {
    if (*format == OutputFormat::kText) PrintList(kept, served_hash);
    PrintAs(*format, KeptJson(kept, served_hash));
    return 0;
  }
  const std::optional<Kept> target = Target(args, kept, served_hash, table);
  if (!target) return 1;
  const std::string to = std::to_string(target->version);
  auto patched = client.MergePatch(
      current, {{"metadata", {{"annotations", {{kRollbackAnnotation, to}}}}}});
  if (!patched) {
    std::cerr << "rollback: " << patched.error().ToString() << "\n";
    return 1;
  }
  if (*format == OutputFormat::kText) {
    std::cout << "configmap/" << table << ": rollback to version " << to
              << " asked (annotation " << kRollbackAnnotation << "=" << to
              << ", serving version " << served_version
              << "); nothing else is published until axctl rollback "
                 "--resume\n";
  }
  json result = {{"routeTable", table},
                 {"rollbackTo", target->version},
                 {"contentHash", target->content_hash}};
  if (args.Has("--wait")) {
    json last = *patched;
    const bool served =
        PollUntil(client, current, *timeout, last, [&](const json& now) {
          const std::string hash = Annotation(now, kContentHashAnnotation);
          return Progress{hash == target->content_hash,
                          "serving version " +
                              Annotation(now, kSnapshotVersionAnnotation) +
                              " (content " + hash + ")"};
        });
    if (!served) {
      std::cerr << "rollback: version " << to
                << "'s content is not served within "
                << (args.Has("--timeout") ? args.Get("--timeout") : "2m")
                << "; the Domains' Published condition says why\n";
      return 1;
    }
    result["servedAs"] = Annotation(last, kSnapshotVersionAnnotation);
    if (*format == OutputFormat::kText) {
      std::cout << "configmap/" << table << ": the content of version " << to
                << " is served as version "
                << result["servedAs"].get<std::string>() << "\n";
    }
  }
  PrintAs(*format, result);
  return 0;
}

}  // namespace ax
