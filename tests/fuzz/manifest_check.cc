// CheckManifest: LoadManifestText on any text, YAML aliases and nesting
// included.
#include "ax/manifest_loader.h"
#include "fuzz_targets.h"

namespace ax::fuzz {

std::string CheckManifest(Input input) {
  const ManifestLoadResult r = LoadManifestText(Text(input), "fuzz.yaml");
  for (const ManifestError& e : r.errors) {
    if (e.message.empty()) return "an error without a message";
    if (!e.source.empty() && !e.source.starts_with("fuzz.yaml")) {
      return "an error naming another file: " + e.source;
    }
  }
  return "";
}

}  // namespace ax::fuzz
