// Cross-object and semantic checks on a parsed World: references, uniqueness,
// ranges that depend on meaning rather than type. Parsing and per-field formats
// live in model_parse.h; nothing here reads files or changes the World.
#pragma once

#include <vector>

#include "ax/model.h"
#include "ax/model_parse.h"

namespace ax {

// Every reason `world` is unsafe to build a snapshot from, in object order;
// empty when it is safe. Each error names the offending object's source,
// "Kind/name" and field path.
std::vector<ManifestError> Validate(const World& world);

}  // namespace ax
