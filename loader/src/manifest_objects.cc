// ReadManifestObjects (manifest_objects.h): the YAML walker's documents sorted
// into ApiObjects by kind; a document that is not an object of a known kind
// with a name is a file-level error and left out. ReadDocuments: the same
// walker's documents of any kind.
#include "ax/manifest_objects.h"

#include <algorithm>
#include <optional>

#include "yaml_documents.h"

namespace ax {
namespace {

using nlohmann::json;

std::string StringAt(const json& object, const char* key) {
  const json value = object.is_object() ? object.value(key, json()) : json();
  return value.is_string() ? value.get<std::string>() : "";
}

std::string KnownKinds() {
  std::string out;
  for (std::string_view kind : kManifestKinds) {
    out += (out.empty() ? "" : ", ") + std::string(kind);
  }
  return out;
}

// What keeps `object` from being an API object of a known kind with a name:
// an error without source and object, or nothing.
std::optional<ManifestError> NotAnObject(const json& object) {
  if (!object.is_object()) {
    return ManifestError{"", "", "", "a manifest object must be a map"};
  }
  const std::string kind = StringAt(object, "kind");
  if (kind.empty()) return ManifestError{"", "", "kind", "is required"};
  if (std::find(kManifestKinds.begin(), kManifestKinds.end(), kind) ==
      kManifestKinds.end()) {
    return ManifestError{
        "", "", "kind",
        "unknown kind \"" + kind + "\", expected one of " + KnownKinds()};
  }
  if (StringAt(object.value("metadata", json()), "name").empty()) {
    return ManifestError{"", "", "metadata.name", "is required"};
  }
  return std::nullopt;
}

}  // namespace

std::vector<json>* ObjectsOfKind(ApiObjects& objects, std::string_view kind) {
  if (kind == "Domain") return &objects.domains;
  if (kind == "Region") return &objects.regions;
  if (kind == "Node") return &objects.nodes;
  if (kind == "Rule") return &objects.rules;
  if (kind == "Canary") return &objects.canaries;
  if (kind == "IspSet") return &objects.isp_sets;
  if (kind == "GeoOverride") return &objects.geo_overrides;
  return nullptr;
}

ManifestObjects ReadManifestObjects(const std::filesystem::path& dir) {
  ManifestObjects out;
  for (const std::filesystem::path& path :
       yaml_documents::ManifestFiles(dir, out.errors)) {
    const std::string file = path.generic_string();
    const auto add = [&out, &file](json object, const std::string& source,
                                   std::vector<ManifestError>& errors,
                                   size_t own_errors) {
      const std::string kind = StringAt(object, "kind");
      if (std::optional<ManifestError> e = NotAnObject(object)) {
        e->source = source;
        e->object = kind;
        errors.push_back(std::move(*e));
        return;
      }
      const std::string kind_name =
          kind + "/" + StringAt(object["metadata"], "name");
      if (errors.size() > own_errors) {
        // A duplicate key: which of its values was meant is unknown.
        for (size_t i = own_errors; i < errors.size(); ++i) {
          errors[i].object = kind_name;
        }
        return;
      }
      out.sources.emplace(kind_name, ObjectSource{file, source});
      ObjectsOfKind(out.objects, kind)->push_back(std::move(object));
    };
    if (!yaml_documents::ReadFile(path, out.errors, add)) {
      out.unreadable_files.push_back(file);
    }
  }
  return out;
}

std::vector<SourcedDocument> ReadDocuments(const std::filesystem::path& path,
                                           std::vector<ManifestError>& errors) {
  std::error_code ec;
  const std::vector<std::filesystem::path> files =
      std::filesystem::is_directory(path, ec)
          ? yaml_documents::ManifestFiles(path, errors)
          : std::vector<std::filesystem::path>{path};
  std::vector<SourcedDocument> out;
  for (const std::filesystem::path& file : files) {
    yaml_documents::ReadFile(
        file, errors,
        [&out](json object, const std::string& source,
               std::vector<ManifestError>& all, size_t own_errors) {
          if (all.size() == own_errors) {
            out.push_back({std::move(object), source});
          }
        });
  }
  return out;
}

}  // namespace ax
