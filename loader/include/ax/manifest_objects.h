// A manifest directory read as the Kubernetes API would hold it, for
// standalone ax-dns's plan: each gslb.ax.io object as JSON (ApiObjects) with
// where it was read. Only what makes a document an object is checked here;
// the objects themselves are GatherWorld's to check and leave out by name.
#pragma once

#include <array>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "ax/gather.h"
#include "ax/model_parse.h"

namespace ax {

// Where an object was read.
struct ObjectSource {
  std::string file;    // the path, as read
  std::string source;  // "path:line#document", for messages
};

struct ManifestObjects {
  ApiObjects objects;  // by kind, in file order (files in name order)
  // "Kind/name" -> where it is defined (the first place, for a name given
  // twice).
  std::map<std::string, ObjectSource> sources;
  // What is no object: a directory without manifests, a file that cannot be
  // read or whose YAML does not parse, a document that is no map or lacks a
  // known kind or a name, or has a duplicate key (then it is left out too).
  std::vector<ManifestError> errors;
  // Files that yielded nothing because they could not be read or parsed:
  // what they hold is unknown, not deleted.
  std::vector<std::string> unreadable_files;
};

// Every *.yaml and *.yml file directly inside `dir`, in name order (as
// LoadManifestDir reads them). Paths read as `dir / name`.
ManifestObjects ReadManifestObjects(const std::filesystem::path& dir);

// One document of a YAML (or JSON) file, whatever its kind.
struct SourcedDocument {
  nlohmann::json object;
  std::string source;  // "path:line#document"
};

// The documents of `path`: a file, or the *.yaml and *.yml files directly
// inside a directory (in name order); `kind: List` documents give their
// items. YAML that does not parse, a file that cannot be read and duplicate
// keys (that document is left out) go to `errors`.
std::vector<SourcedDocument> ReadDocuments(const std::filesystem::path& path,
                                           std::vector<ManifestError>& errors);

// The kinds ApiObjects holds, and the list of `objects` for `kind` (null for
// any other kind).
inline constexpr std::array<std::string_view, 7> kManifestKinds = {
    "Domain", "Region", "Node", "Rule", "Canary", "IspSet", "GeoOverride"};
std::vector<nlohmann::json>* ObjectsOfKind(ApiObjects& objects,
                                           std::string_view kind);

}  // namespace ax
