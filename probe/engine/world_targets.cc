// World -> probe targets (world_targets.h).
#include "engine/world_targets.h"

#include <fstream>
#include <optional>

namespace ax::probe {
namespace {

// The token file's first line; nullopt when unreadable.
std::optional<std::string> ReadToken(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::string token;
  if (!in || !std::getline(in, token)) return std::nullopt;
  return token;
}

}  // namespace

WorldTargets ProbeTargetsForWorld(const World& world,
                                  const std::filesystem::path& token_dir) {
  WorldTargets out;
  for (const Node& n : world.nodes) {
    if (!n.health_check || n.admin_state == AdminState::kDisabled) continue;
    const HealthCheck& check = *n.health_check;
    if (!check.address && n.addresses.empty()) continue;
    std::string token;
    if (const std::string& ref = check.token_secret_ref; !ref.empty()) {
      const std::filesystem::path file =
          token_dir.empty() ? std::filesystem::path() : token_dir / ref;
      std::optional<std::string> read;
      if (!file.empty()) read = ReadToken(file);
      if (read) {
        token = std::move(*read);
      } else {
        out.unreadable_tokens.push_back({n.meta.name, file.string()});
      }
    }
    out.targets.push_back(
        {.node = n.meta.name,
         .address = check.address.value_or(n.addresses.front()),
         .check = check,
         .token = std::move(token)});
  }
  return out;
}

}  // namespace ax::probe
