// The loader's one YAML walker: YAML text, files and directories -> JSON
// manifest documents, each with its "path:line#document" source. Turns YAML
// into JSON only (YAML 1.2 core schema, duplicate keys reported); what a
// document means (model objects, API objects) is the callers'.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "ax/model_parse.h"

namespace ax::yaml_documents {

// One manifest object as written: a YAML document, or one item of a
// `kind: List` document (what `kubectl get -o yaml` prints). `errors` holds
// every mistake found so far; those from index `own_errors` on are this
// document's own (duplicate keys: the first value is kept).
using OnDocument =
    std::function<void(nlohmann::json object, const std::string& source,
                       std::vector<ManifestError>& errors, size_t own_errors)>;

// Documents separated by `---` (empty ones skipped), in order, to
// `on_document`; mistakes no document owns (a List whose items are no list)
// go to `errors` where they are met. False when the YAML does not parse:
// then one error and no documents. `file` names the text in sources.
bool ReadText(std::string_view yaml, std::string_view file,
              std::vector<ManifestError>& errors,
              const OnDocument& on_document);
// The same for a file; false also when it cannot be read.
bool ReadFile(const std::filesystem::path& path,
              std::vector<ManifestError>& errors,
              const OnDocument& on_document);

// The *.yaml and *.yml files directly inside `dir` (not recursive), in name
// order. An unreadable directory, or one without such files, is an error in
// `errors`: nothing would be served.
std::vector<std::filesystem::path> ManifestFiles(
    const std::filesystem::path& dir, std::vector<ManifestError>& errors);

}  // namespace ax::yaml_documents
