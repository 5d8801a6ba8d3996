// Manifest objects (apiVersion/kind/metadata/spec[/status] as JSON) -> model
// structs, and the ManifestError every manifest check reports. Works on JSON so
// YAML files (loader/) and Kubernetes API objects share one parser; no YAML,
// files or cross-object checks here (those live in the loader and in
// validate.h).
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "ax/model.h"

namespace ax {

// One mistake in the manifests, precise enough to fix without guessing.
struct ManifestError {
  std::string source;   // "examples/quickstart/nodes.yaml:12#2"; empty when not
                        // file-bound
  std::string object;   // "Node/sz-01"; empty when the object is not known yet
  std::string field;    // JSON path inside the object: "spec.healthCheck.port"
  std::string message;  // "must be 1..65535, got 70000"

  // "examples/x.yaml:12#2: Node/sz-01: spec.healthCheck.port: must be 1..65535,
  // got 70000", leaving out the parts that are empty.
  std::string ToString() const;
};

// Parses one manifest object of kind Domain, Region, Node, Rule, Canary,
// IspSet or GeoOverride (apiVersion gslb.ax.io/v1alpha1) and appends it to the
// matching list of `world`. `source` is copied into the object's metadata and
// into every error. Unknown spec fields, wrong types and bad formats are
// errors; metadata and status may carry fields Ax does not read (Kubernetes
// adds uid, managedFields, conditions, ...). Returns true when the object was
// appended; otherwise appends nothing to `world` and at least one entry to
// `errors`.
bool ParseManifestObject(const nlohmann::json& object, std::string_view source,
                         World& world, std::vector<ManifestError>& errors);

}  // namespace ax
