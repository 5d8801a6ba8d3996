// axctl geo report: flags -> measurements -> ReportMeasurements -> YAML (or
// a JSON list) on stdout.
#include "axctl/geo_report_command.h"

#include <chrono>
#include <iostream>
#include <string>

#include "ax/measurement_report.h"
#include "ax/runtime/config_values.h"
#include "axctl/measurement_inputs.h"
#include "axctl/yaml_out.h"

namespace ax {

int GeoReportCommand(const Args& args) {
  if (!args.Has("--name") ||
      (!args.Has("--measurements") && !args.Has("--access-log"))) {
    std::cerr << "usage:\n" << kGeoReportUsage;
    return 2;
  }
  std::vector<Measurement> samples;
  if (!ReadMeasurementFlags(args, "geo report", samples)) return 1;
  ReportOptions options{.name = args.Get("--name"),
                        .source = args.Get("--source")};
  if (args.Has("--window")) {
    std::chrono::milliseconds window{};
    std::string error;
    if (!runtime::ParseDuration(args.Get("--window"), &window, &error) ||
        window.count() % 1000 != 0) {
      std::cerr << "geo report: --window must be whole seconds like 1h or "
                   "30m, or 0 (one window over the samples): "
                << (error.empty() ? "got " + args.Get("--window") : error)
                << "\n";
      return 2;
    }
    options.window_s = window.count() / 1000;
  }
  std::vector<MeasurementReport> reports = ReportMeasurements(samples, options);
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (MeasurementReport& r : reports) {
    r.namespace_name = args.Get("--namespace");
    // Checked as the API's readers will check it: a --name that is no
    // object name is refused here, not by whoever reads the report.
    const auto reread =
        ParseMeasurementReportText(SerializeMeasurementReport(r), "geo report");
    for (const ManifestError& e : reread.errors) {
      std::cerr << e.ToString() << "\n";
    }
    if (!reread.report) return 1;
    auto object = nlohmann::ordered_json::parse(SerializeMeasurementReport(r));
    if (args.Has("--json")) {
      list.push_back(std::move(object));
    } else {
      std::cout << YamlDocument(object);
    }
  }
  if (args.Has("--json")) {
    std::cout << nlohmann::ordered_json{{"apiVersion", "v1"},
                                        {"kind", "List"},
                                        {"items", std::move(list)}}
                     .dump(2)
              << "\n";
  }
  std::cerr << reports.size() << " reports of " << samples.size()
            << " samples\n";
  return 0;
}

}  // namespace ax
