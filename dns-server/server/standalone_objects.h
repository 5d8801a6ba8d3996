// The manifest objects standalone reconciles, kept between passes the way the
// Kubernetes API keeps them for the operator (statuses, generations). No
// I/O: reading files and planning live elsewhere.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "ax/controller/actions.h"
#include "ax/controller/observed_state.h"
#include "ax/manifest_objects.h"

namespace ax::dns {

// "Kind/name" -> where it was read.
using ObjectSources = std::map<std::string, ObjectSource>;

// Makes `held` (and `sources`) the objects of `read`. An object read again
// keeps the status the plans wrote, and its metadata.generation goes up by
// one when its spec changed (the API's rule), so a Canary keeps its phase,
// step and stepStartedAt and restarts when edited. The objects of a file
// that could not be read stay as last read (kubectl would have applied
// nothing of it); those of a deleted file go.
void ReplaceObjects(ManifestObjects read, ApiObjects& held,
                    ObjectSources& sources);

// Writes `update`'s status into its object among `observed`'s gslb.ax.io
// objects and ProbeReports, as PUT .../status would. Returns the status it
// replaced (null when there was none), or nullopt when no such object is
// held.
std::optional<nlohmann::json> WriteStatus(
    const controller::StatusUpdate& update,
    controller::ObservedState& observed);

}  // namespace ax::dns
