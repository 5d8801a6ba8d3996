// Loading Kubernetes-style YAML manifests (files or a directory of them) into
// an ax::World, for standalone mode and tests. YAML is turned into JSON here
// and handed to the core parser (model_parse.h) and validator (validate.h); no
// model rules live in the loader.
#pragma once

#include <filesystem>
#include <string_view>
#include <vector>

#include "ax/model.h"
#include "ax/model_parse.h"

namespace ax {

struct ManifestLoadResult {
  World world;  // only objects that parsed cleanly
  std::vector<ManifestError> errors;
  bool ok() const { return errors.empty(); }
};

// Whether loading checks the references between objects (validate.h): kNo
// for a part of a World that joins others later (axctl simulate --with).
enum class CrossCheck { kYes, kNo };

// One YAML file: several documents separated by `---` (empty ones skipped),
// each a manifest object or a `kind: List` with `items` (what `kubectl get -o
// yaml` prints). Sources read "path:line#document". Cross-object validation
// runs only when every object parsed, so a broken object is not also reported
// as "not defined" wherever it is referenced.
ManifestLoadResult LoadManifestFile(const std::filesystem::path& path,
                                    CrossCheck check = CrossCheck::kYes);

// Every *.yaml and *.yml file directly inside `dir` (not recursive), in name
// order, loaded as one World. A directory without any such file is an error:
// nothing would be served.
ManifestLoadResult LoadManifestDir(const std::filesystem::path& dir,
                                   CrossCheck check = CrossCheck::kYes);

// YAML text already in memory; `source_name` stands in for the file name in
// sources.
ManifestLoadResult LoadManifestText(std::string_view yaml,
                                    std::string_view source_name);

}  // namespace ax
