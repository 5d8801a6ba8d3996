// ReadReportFiles (report_files.h).
#include "server/report_files.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <system_error>

namespace ax::dns {

ReportFiles ReadReportFiles(const std::filesystem::path& dir) {
  ReportFiles out;
  std::error_code ec;
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".json" && entry.is_regular_file(ec)) {
      files.push_back(entry.path());
    }
  }
  if (ec) {
    out.errors.push_back(dir.string() + ": " + ec.message());
    return out;
  }
  std::sort(files.begin(), files.end());
  for (const std::filesystem::path& file : files) {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    if (!in) {
      out.errors.push_back(file.string() + ": cannot be read");
      continue;
    }
    nlohmann::json object = nlohmann::json::parse(text.str(), nullptr,
                                                  /*allow_exceptions=*/false);
    if (!object.is_object()) {
      out.errors.push_back(file.string() + ": not a JSON object");
      continue;
    }
    out.reports.push_back(std::move(object));
  }
  return out;
}

}  // namespace ax::dns
