// Where axctl gets a snapshot from: manifests (built on the spot, every node Up
// since no probes run here) or a snapshot document (as published in the
// ConfigMap or the --snapshot file). Errors are printed to stderr.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ax/manifest_loader.h"
#include "ax/model.h"
#include "ax/snapshot.h"

namespace ax {

// Loads every path (file or directory) into one World; false on any error.
// kNo: the objects are a part that joins a World later, which checks them.
bool LoadManifests(const std::vector<std::string>& paths, World& world,
                   CrossCheck check = CrossCheck::kYes);

// The snapshot of `world` with every node Up (no prober runs in axctl).
Snapshot SnapshotOfWorld(const World& world);

std::optional<Snapshot> SnapshotFromManifests(
    const std::vector<std::string>& paths);
std::optional<Snapshot> SnapshotFromFile(const std::string& path);

}  // namespace ax
