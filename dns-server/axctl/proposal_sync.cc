// SyncProposals (proposal_sync.h).
#include "axctl/proposal_sync.h"

#include <map>
#include <set>

#include "ax/rfc3339.h"

namespace ax {
namespace {

using nlohmann::json;

struct Existing {
  std::string resource_version;
  bool ours = false;
  bool approved = true;
  bool expired = false;
};

Existing Read(const json& object, int64_t now_s) {
  Existing e;
  const json version =
      object.value("metadata", json::object()).value("resourceVersion", json());
  if (version.is_string()) e.resource_version = version.get<std::string>();
  const json labels =
      object.value("metadata", json::object()).value("labels", json::object());
  const auto by = labels.find(kProposedByLabel);
  e.ours = by != labels.end() && *by == kProposedBy;
  const json spec = object.value("spec", json::object());
  const auto approved = spec.find("approved");
  e.approved = approved == spec.end() || *approved != false;
  const auto expires = spec.find("expiresAt");
  if (expires != spec.end() && expires->is_string()) {
    const auto ms = ParseRfc3339Ms(expires->get<std::string>());
    e.expired = ms && *ms / 1000 <= now_s;
  }
  return e;
}

}  // namespace

ProposalSync SyncProposals(const std::vector<GeoOverride>& proposals,
                           const std::vector<json>& existing, int64_t now_s) {
  std::map<std::string, Existing> by_name;
  for (const json& object : existing) {
    const json name =
        object.value("metadata", json::object()).value("name", json());
    if (name.is_string())
      by_name[name.get<std::string>()] = Read(object, now_s);
  }
  ProposalSync out;
  std::set<std::string> proposed;
  for (const GeoOverride& p : proposals) {
    proposed.insert(p.meta.name);
    const auto it = by_name.find(p.meta.name);
    const bool open = it != by_name.end() && it->second.ours &&
                      (!it->second.approved || it->second.expired);
    if (it == by_name.end() || open) {
      out.apply.push_back({p, it == by_name.end()
                                  ? std::string()
                                  : it->second.resource_version});
    } else if (!it->second.ours) {
      out.left.push_back(p.meta.name +
                         ": a GeoOverride of that name exists "
                         "and is not a proposal of " +
                         kProposedBy);
    } else {
      out.left.push_back(p.meta.name + ": approved and in force");
    }
  }
  for (const auto& [name, e] : by_name) {
    if (e.ours && !e.approved && !proposed.contains(name)) {
      out.remove.push_back(name);
    }
  }
  return out;
}

}  // namespace ax
