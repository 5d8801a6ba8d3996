// Reading the measurement flags (measurement_inputs.h): files -> the log
// parsers (measurement_log.h) and the MeasurementReport parser.
#include "axctl/measurement_inputs.h"

#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#include "ax/manifest_objects.h"
#include "axctl/measurement_log.h"

namespace ax {
namespace {

std::optional<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

bool ReadMeasurementFlags(const Args& args, std::string_view command,
                          std::vector<Measurement>& out) {
  std::vector<LogError> errors;
  auto read = [&](const std::string& path) -> std::optional<std::string> {
    auto text = ReadFile(path);
    if (!text) std::cerr << command << ": cannot read " << path << "\n";
    return text;
  };
  for (const std::string& path : args.All("--measurements")) {
    const auto text = read(path);
    if (!text) return false;
    ParseJsonLines(*text, path, out, errors);
  }
  for (const std::string& spec : args.All("--access-log")) {
    const size_t eq = spec.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size()) {
      std::cerr << command << ": --access-log takes NODE=FILE, got '" << spec
                << "'\n";
      return false;
    }
    const std::string path = spec.substr(eq + 1);
    const auto text = read(path);
    if (!text) return false;
    ParseAccessLog(*text, path, spec.substr(0, eq), out, errors);
  }
  constexpr size_t kShown = 20;
  for (size_t i = 0; i < errors.size() && i < kShown; ++i) {
    std::cerr << errors[i].ToString() << "\n";
  }
  if (errors.size() > kShown) {
    std::cerr << "... and " << errors.size() - kShown << " more bad lines\n";
  }
  if (!errors.empty() && !args.Has("--skip-bad-lines")) {
    std::cerr << command << ": " << errors.size()
              << " bad lines (--skip-bad-lines to go on without them)\n";
    return false;
  }
  return true;
}

bool ReadReportFlags(const Args& args, std::string_view command,
                     std::vector<MeasurementReport>& out) {
  std::vector<ManifestError> errors;
  for (const std::string& path : args.All("--reports")) {
    for (SourcedDocument& doc : ReadDocuments(path, errors)) {
      ParseMeasurementReportResult r =
          ParseMeasurementReport(doc.object, doc.source);
      if (r.report) out.push_back(std::move(*r.report));
      errors.insert(errors.end(), r.errors.begin(), r.errors.end());
    }
  }
  for (const ManifestError& e : errors) std::cerr << e.ToString() << "\n";
  if (!errors.empty()) {
    std::cerr << command << ": " << errors.size()
              << " errors in the --reports files\n";
  }
  return errors.empty();
}

}  // namespace ax
