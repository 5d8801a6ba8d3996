// Where `axctl geo report` and `axctl geo suggest` read measurements from:
// the --measurements (JSON lines) and --access-log NODE=FILE files, and the
// --reports files or directories of MeasurementReports (YAML or JSON, as
// `axctl geo report` prints them or `kubectl get -o yaml` lists them). Bad
// lines and bad reports are printed to stderr with file, line and field.
#pragma once

#include <string_view>
#include <vector>

#include "ax/measurement_report.h"
#include "axctl/args.h"

namespace ax {

// Appends every sample of the --measurements and --access-log files; false
// when a file cannot be read or, without --skip-bad-lines, has a bad line.
// `command` prefixes the messages ("geo suggest").
bool ReadMeasurementFlags(const Args& args, std::string_view command,
                          std::vector<Measurement>& out);

// Appends every MeasurementReport of the --reports paths; false when a path
// cannot be read or holds anything but valid MeasurementReports.
bool ReadReportFlags(const Args& args, std::string_view command,
                     std::vector<MeasurementReport>& out);

}  // namespace ax
