// The ProbeReport resource (gslb.ax.io/v1alpha1): one vantage's raw view of
// every node it probes, as a Kubernetes object. Plain data, its JSON form
// (strict parser naming the bad field) and the conversion to the quorum's
// input (quorum.h). Producing reports (the ax-probe sidecar) and storing them
// (file, Kubernetes API) live at the edges, not here.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ax/model_parse.h"
#include "ax/node_status.h"
#include "ax/quorum.h"

namespace ax {

inline constexpr char kProbeReportKind[] = "ProbeReport";

// Milliseconds from the start of the last probe to the end of each phase
// (curl-style cumulative times); a phase not reached is absent.
struct ProbeReportPhases {
  std::optional<double> connect_ms;
  std::optional<double> tls_ms;
  std::optional<double> first_byte_ms;
  std::optional<double> total_ms;
};

// One node as this vantage sees it.
struct ProbeNodeReport {
  std::string node;
  Health health = Health::kUnknown;  // the anti-flap verdict (fail 3/rise 5)
  bool up = false;                   // the last probe passed
  std::optional<double> latency_ms;  // smoothed over recent successes
  ProbeReportPhases phases;          // of the last probe
  std::optional<NodeLoad> load;      // self-reported by the health endpoint
  std::optional<double> error_rate;  // self-reported too, 0..1
  std::string error;         // last probe's failure reason ("timeout", ...)
  std::string error_detail;  // human-readable cause; "" when ok
  uint32_t consecutive_failures = 0;
  uint32_t consecutive_successes = 0;
  uint32_t transitions = 0;  // Up <-> Down flaps
  bool suppressed = false;   // held Down by flap damping (health.h)
  double flap_penalty = 0;   // the damping penalty, as of the last probe
  int64_t health_changed_at_ms = 0;  // 0: never (still Unknown)
};

// The route table the ax-dns beside the vantage serves (ax-probe
// --served-from), so readers can tell a replica left behind.
struct ServedSnapshot {
  uint64_t version = 0;
  std::string content_hash;
  int64_t loaded_at_ms = 0;  // when that ax-dns loaded it (wall clock)
  bool operator==(const ServedSnapshot&) const = default;
};

struct ProbeReport {
  std::string name;            // metadata.name (ProbeReportName(vantage))
  std::string namespace_name;  // metadata.namespace; "" outside Kubernetes
  std::string vantage;
  VantageIdentity identity;    // spec.area, spec.isp, spec.labels
  int64_t observed_at_ms = 0;  // when the results were read (wall clock)
  std::vector<ProbeNodeReport> results;  // sorted by node, unique
  std::optional<ServedSnapshot> served;  // spec.served
};

// A valid object name for `vantage`: lower case, characters outside
// [a-z0-9.-] become '-', trimmed to start and end alphanumeric, at most 253
// characters; "vantage" if nothing is left.
std::string ProbeReportName(std::string_view vantage);

// The object as JSON: apiVersion, kind, metadata {name[, namespace]}, spec
// {vantage, [area, isp, labels,] observedAt (RFC 3339, ms), results [...],
// [served {version, contentHash, loadedAt}]}.
// Durations are rounded to microseconds (3 decimals of ms), so serialise ->
// parse -> serialise reproduces the bytes. Absent optionals are left out.
nlohmann::json ProbeReportToJson(const ProbeReport& report);
// ProbeReportToJson as compact text on one line (no trailing newline).
std::string SerializeProbeReport(const ProbeReport& report);

struct ParseProbeReportResult {
  std::optional<ProbeReport> report;  // set only when `errors` is empty
  std::vector<ManifestError> errors;  // field paths like spec.results[1].up
};

// Strict: unknown or missing spec keys, wrong types, unknown health names,
// negative durations or load, duplicate nodes and a malformed observedAt are
// errors. metadata and status may carry fields Kubernetes adds. Never throws.
ParseProbeReportResult ParseProbeReport(const nlohmann::json& object,
                                        std::string_view source = "");
// The same from text (malformed JSON is one error).
ParseProbeReportResult ParseProbeReportText(std::string_view text,
                                            std::string_view source = "");

// The quorum's view of the report: per node its verdict, smoothed latency,
// load and when the verdict last changed.
VantageVerdicts ToVantageVerdicts(const ProbeReport& report);

}  // namespace ax
