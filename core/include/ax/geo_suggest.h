// Corrections from measurement: real clients' timings to the nodes (time to
// first byte or RTT), raw or as MeasurementReports, aggregated per client
// prefix and time window, turned into GeoOverride proposals where the
// measured best node consistently contradicts the Region the prefix is
// classified into. Pure: measurements, the declared Regions, the
// classification (a callback) and `now` come in; nothing is read or written
// here (axctl geo suggest reads logs, reports and the cluster, and prints or
// applies the proposals).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "ax/ip.h"
#include "ax/latency_histogram.h"
#include "ax/measurement_report.h"
#include "ax/model.h"

namespace ax {

struct SuggestOptions {
  int v4_prefix = 24;  // clients are grouped per /24 (IPv4) and /48 (IPv6)
  int v6_prefix = 48;
  // A node counts for a prefix with at least this many samples from it.
  uint32_t min_samples = 20;
  // The best node's median must beat the classified Region's best by both.
  double min_margin_ms = 20;
  double min_margin_ratio = 0.25;  // of the classified Region's median
  // Consistently: the prefix's time span cut into `windows` equal slices
  // (a report counts in the slice holding its window's middle); in at least
  // `min_windows_won` of those where both nodes have `min_window_samples`,
  // the best node's median is lower.
  uint32_t windows = 4;
  uint32_t min_windows_won = 3;
  uint32_t min_window_samples = 3;
  int64_t expires_after_s = 14 * 86400;  // the proposals' expiresAt - now
};

// Why a prefix got no proposal, for the report.
enum class SuggestVerdict : uint8_t {
  kProposed,
  kAgrees,            // the best node serves the classified Region
  kFewSamples,        // no node reached min_samples
  kUnclassified,      // no Region claims the prefix
  kRegionUnmeasured,  // none of the classified Region's nodes reached it
  kSmallMargin,       // the best is not better by the margins
  kInconsistent,      // the best did not win in enough time windows
  kNoRegionForNode,   // no Region lists the best node
};
const char* SuggestVerdictName(SuggestVerdict v);

struct PrefixFinding {
  IpPrefix prefix;
  SuggestVerdict verdict = SuggestVerdict::kFewSamples;
  std::string region;  // the classified Region ("" when none)
  uint32_t samples = 0;
  std::string best_node;  // when measured
  double best_ms = 0;
  std::string region_node;  // the classified Region's best, when measured
  double region_ms = 0;
  uint32_t windows_won = 0;
  uint32_t windows_compared = 0;
  std::string target;  // kProposed: the Region proposed
};

struct Suggestions {
  std::vector<GeoOverride> proposals;   // approved false, by prefix
  std::vector<PrefixFinding> findings;  // every prefix measured, by prefix
};

// One client prefix's timings, per time slice and node.
struct PrefixMeasurements {
  IpPrefix prefix;
  int64_t from = 0;  // unix seconds: the first sample's (or report's) time
  int64_t to = 0;    // and the last
  // SuggestOptions::windows slices of [from, to], in time order.
  std::vector<std::map<std::string, LatencyHistogram>> windows;
};

// Raw samples and reports together, grouped per prefix: a sample by its
// client's /v4_prefix or /v6_prefix, a report's row by its prefix cut to
// those lengths (a report's shorter prefix is kept as it is). By prefix.
std::vector<PrefixMeasurements> AggregateMeasurements(
    const std::vector<Measurement>& samples,
    const std::vector<MeasurementReport>& reports,
    const SuggestOptions& options = {});

// `classified(prefix)`: the Region (name) the prefix's clients are put in
// now, by the database and any override; "" for none. `regions` are the
// declared Regions (their node lists say where a node serves). Measurements
// naming nodes no Region lists still count towards a prefix's best. Medians
// come from the histograms (latency_histogram.h: within a bucket of the
// samples' own).
Suggestions SuggestGeoOverrides(
    const std::vector<PrefixMeasurements>& measurements,
    const std::vector<Region>& regions,
    const std::function<std::string(const IpPrefix&)>& classified,
    int64_t now_s, const SuggestOptions& options = {});

}  // namespace ax
