// Manifests or snapshot files into a Snapshot for axctl.
#include "axctl/world_source.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "ax/build_snapshot.h"
#include "ax/manifest_loader.h"
#include "ax/runtime/clock.h"
#include "ax/snapshot_json.h"
#include "ax/validate.h"

namespace ax {
namespace {

template <typename T>
void Append(std::vector<T>& to, const std::vector<T>& from) {
  to.insert(to.end(), from.begin(), from.end());
}

}  // namespace

bool LoadManifests(const std::vector<std::string>& paths, World& world,
                   CrossCheck check) {
  bool ok = !paths.empty();
  for (const std::string& p : paths) {
    const ManifestLoadResult r = std::filesystem::is_directory(p)
                                     ? LoadManifestDir(p, check)
                                     : LoadManifestFile(p, check);
    for (const ManifestError& e : r.errors) std::cerr << e.ToString() << "\n";
    ok &= r.ok();
    Append(world.domains, r.world.domains);
    Append(world.regions, r.world.regions);
    Append(world.nodes, r.world.nodes);
    Append(world.rules, r.world.rules);
    Append(world.canaries, r.world.canaries);
    Append(world.isp_sets, r.world.isp_sets);
    Append(world.geo_overrides, r.world.geo_overrides);
  }
  if (paths.size() > 1 && ok && check == CrossCheck::kYes) {
    // Files were validated one by one; references may cross them.
    for (const ManifestError& e : Validate(world)) {
      std::cerr << e.ToString() << "\n";
      ok = false;
    }
  }
  return ok;
}

Snapshot SnapshotOfWorld(const World& world) {
  // No prober runs inside axctl: every node counts as Up, as its admin state
  // allows.
  StatusMap status;
  for (const Node& n : world.nodes) status[n.meta.name].health = Health::kUp;
  return BuildSnapshot(world, status, nullptr, {.now_ms = runtime::WallMs()});
}

std::optional<Snapshot> SnapshotFromManifests(
    const std::vector<std::string>& paths) {
  World world;
  if (!LoadManifests(paths, world)) return std::nullopt;
  return SnapshotOfWorld(world);
}

std::optional<Snapshot> SnapshotFromFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::cerr << path << ": cannot read\n";
    return std::nullopt;
  }
  std::ostringstream text;
  text << in.rdbuf();
  ParseSnapshotResult r = ParseSnapshot(text.str());
  for (const SnapshotError& e : r.errors) {
    std::cerr << path << ": " << e.ToString() << "\n";
  }
  return std::move(r.snapshot);
}

}  // namespace ax
