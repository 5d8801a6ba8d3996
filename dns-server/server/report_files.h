// `--probe-reports DIR` (standalone): the ProbeReports of other vantages as
// files, the way `ax-probe --report DIR/<vantage>.json` writes them, so that
// vantages in other networks reach a standalone ax-dns without Kubernetes.
// Only reading the files lives here; what a report means is the plan's
// (an invalid one is counted and named there, as in the operator).
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ax::dns {

struct ReportFiles {
  std::vector<nlohmann::json> reports;  // one per *.json file that is JSON
  // "FILE: what is wrong" for each file that could not be read or is not
  // a JSON object.
  std::vector<std::string> errors;
};

// Every *.json file directly inside `dir`, in name order. A missing
// directory is one error.
ReportFiles ReadReportFiles(const std::filesystem::path& dir);

}  // namespace ax::dns
