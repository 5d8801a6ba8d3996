// The MeasurementReport resource (gslb.ax.io/v1alpha1): real clients' timings
// to the nodes over one time window, aggregated per client prefix and node
// into latency histograms, as a Kubernetes object a log shipper writes
// (`axctl geo report`) and the geo suggestions read (geo_suggest.h). Plain
// data, its JSON form and a strict parser naming the bad field. Reading logs
// and talking to the API live at the edges, not here.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ax/ip.h"
#include "ax/latency_histogram.h"
#include "ax/model_parse.h"

namespace ax {

inline constexpr char kMeasurementReportKind[] = "MeasurementReport";

// An object must fit etcd's 1.5 MiB request limit and the CRD's validation
// cost budget (crds/measurementreport.yaml): at most this many prefix x node
// histograms per report, at most this many nodes per prefix, and reports
// ReportMeasurements writes stay under the byte budget (a histogram is
// 40 to 400 bytes of JSON, by how widely its timings spread); a shipper
// with more writes several reports.
inline constexpr size_t kMeasurementReportMaxRows = 8000;
inline constexpr size_t kMeasurementReportMaxNodesPerPrefix = 100;
inline constexpr size_t kMeasurementReportMaxBytes = 512 * 1024;

// One client's timing to one node, as a log line gives it.
struct Measurement {
  IpAddress client;
  std::string node;
  double ms = 0;
  int64_t time = 0;  // unix seconds
};

struct MeasuredNode {
  std::string node;
  LatencyHistogram latency;  // milliseconds, at least one sample
};

struct MeasuredPrefix {
  IpPrefix prefix;
  std::vector<MeasuredNode> nodes;  // by node name, unique
};

struct MeasurementReport {
  std::string name;            // metadata.name
  std::string namespace_name;  // metadata.namespace; "" outside Kubernetes
  std::string source;          // who measured: "gz-01 access log", free text
  int64_t from_ms = 0;         // the window the samples fall in (unix ms)
  int64_t to_ms = 0;
  std::vector<MeasuredPrefix> prefixes;  // by prefix, unique
};

// A shipper's reports of `measurements`: cut into windows of `window_s`
// seconds (aligned to the epoch, so shippers of different nodes agree; 0:
// one window over the samples' first to last time), grouped per client
// prefix (/`v4_prefix`, /`v6_prefix`) and node, split into parts within the
// limits above (a prefix measured at more than 100 nodes continues in the
// next part; readers merge reports). Named `name`-<window start, like
// 20261201t0600> with windows (`name` alone without), then -1, -2, ... when
// a window needs several parts. In time order; none without measurements.
struct ReportOptions {
  std::string name;
  std::string source;
  int64_t window_s = 3600;
  int v4_prefix = 24;
  int v6_prefix = 48;
};
std::vector<MeasurementReport> ReportMeasurements(
    const std::vector<Measurement>& measurements, const ReportOptions& options);

// The object as JSON: apiVersion, kind, metadata {name[, namespace]}, spec
// {source, from, to (RFC 3339, ms), prefixes [{prefix, nodes [{node, first,
// counts}]}]}; serialise -> parse -> serialise reproduces the bytes.
nlohmann::json MeasurementReportToJson(const MeasurementReport& report);
std::string SerializeMeasurementReport(const MeasurementReport& report);

struct ParseMeasurementReportResult {
  std::optional<MeasurementReport> report;  // set only when `errors` is empty
  std::vector<ManifestError> errors;  // paths like spec.prefixes[3].nodes[0]
};

// Strict: unknown or missing spec keys, from after to, prefixes with host
// bits set, duplicate prefixes or nodes, empty or overlong histograms, more
// than kMeasurementReportMaxRows rows and more than
// kMeasurementReportMaxNodesPerPrefix nodes in a prefix are errors. metadata
// and status may carry fields Kubernetes adds. Never throws.
ParseMeasurementReportResult ParseMeasurementReport(
    const nlohmann::json& object, std::string_view source = "");
ParseMeasurementReportResult ParseMeasurementReportText(
    std::string_view text, std::string_view source = "");

}  // namespace ax
