// YAML manifests -> JSON documents (yaml_documents.h) -> core parser and
// validator. No model rules and no YAML walking here.
#include "ax/manifest_loader.h"

#include <nlohmann/json.hpp>
#include <string>

#include "ax/validate.h"
#include "yaml_documents.h"

namespace ax {
namespace {

// Parses each document into `result.world`; validation is Finish's.
yaml_documents::OnDocument ParseInto(ManifestLoadResult& result) {
  return [&result](nlohmann::json object, const std::string& source,
                   std::vector<ManifestError>& errors, size_t) {
    ParseManifestObject(object, source, result.world, errors);
  };
}

// Cross-object checks only make sense once every object is in the World.
ManifestLoadResult Finish(ManifestLoadResult result,
                          CrossCheck check = CrossCheck::kYes) {
  if (result.errors.empty() && check == CrossCheck::kYes) {
    result.errors = Validate(result.world);
  }
  return result;
}

}  // namespace

ManifestLoadResult LoadManifestText(std::string_view yaml,
                                    std::string_view source_name) {
  ManifestLoadResult result;
  yaml_documents::ReadText(yaml, source_name, result.errors, ParseInto(result));
  return Finish(std::move(result));
}

ManifestLoadResult LoadManifestFile(const std::filesystem::path& path,
                                    CrossCheck check) {
  ManifestLoadResult result;
  yaml_documents::ReadFile(path, result.errors, ParseInto(result));
  return Finish(std::move(result), check);
}

ManifestLoadResult LoadManifestDir(const std::filesystem::path& dir,
                                   CrossCheck check) {
  ManifestLoadResult result;
  const std::vector<std::filesystem::path> files =
      yaml_documents::ManifestFiles(dir, result.errors);
  if (files.empty()) return result;
  for (const auto& file : files) {
    yaml_documents::ReadFile(file, result.errors, ParseInto(result));
  }
  return Finish(std::move(result), check);
}

}  // namespace ax
