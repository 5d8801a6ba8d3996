// Where the sidecar's reports go: "-" is stdout, one JSON document per line;
// anything else is a file replaced atomically (a temp file in the same
// directory, fsync, rename), so a reader never sees half a report. The
// Kubernetes API is api_report.h's.
#pragma once

#include <string>
#include <string_view>

namespace ax::probe {

class ReportOutput {
 public:
  explicit ReportOutput(std::string target) : target_(std::move(target)) {}

  // Writes one document (without a trailing newline; one is added). False
  // with `error` set when the write or rename failed.
  bool Write(std::string_view document, std::string* error) const;

  bool enabled() const { return !target_.empty(); }
  const std::string& target() const { return target_; }

 private:
  const std::string target_;
};

}  // namespace ax::probe
