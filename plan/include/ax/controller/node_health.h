// Plan step 2: ProbeReport objects -> one health verdict per node by quorum
// over the vantages (quorum.h), plus what each vantage said about each node
// and how each report counted, for Node and ProbeReport status. Parsing is
// the core's (probe_report.h); turning this into status lives elsewhere.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "ax/controller/object_ref.h"
#include "ax/model_parse.h"
#include "ax/quorum.h"

namespace ax::controller {

// How a vantage's report counted in the quorum (Node status vantages[].vote).
enum class Vote { kCounted, kStale, kFuture, kDiscounted };
// "Counted", "Stale", "Future", "Discounted"
const char* VoteName(Vote vote);

// One vantage's view of one node.
struct VantageView {
  std::string vantage;
  Health health = Health::kUnknown;
  Vote vote = Vote::kCounted;
  std::optional<double> latency_ms;
  int64_t observed_at_ms = 0;
  uint32_t consecutive_failures = 0;
};

// How one ProbeReport object was treated.
enum class ReportUse {
  kCounted,     // fresh, its votes counted
  kStale,       // older than the quorum's max age
  kFuture,      // stamped further ahead of now than the quorum allows
  kDiscounted,  // its vantage sees every node down while others do not
  kSuperseded,  // another report of the same vantage is fresher
  kInvalid,     // failed to parse
};

struct ReportView {
  ObjectRef object;
  ReportUse use = ReportUse::kCounted;
  std::string vantage;
  int64_t observed_at_ms = 0;
  std::vector<ManifestError> errors;  // for kInvalid
};

struct NodeHealth {
  QuorumResult quorum;
  // Per vantage group of the Regions (DecideGroupQuorums), by group name.
  GroupQuorums groups;
  // Node name -> each vantage's view of it, in vantage order (the report
  // the quorum used per vantage).
  std::map<std::string, std::vector<VantageView>> vantages;
  std::vector<ReportView> reports;  // one per input object, in input order
  // When the verdicts change by time alone: the first moment a report that
  // counts now turns stale. Unset when none counts.
  std::optional<int64_t> next_change_ms;
};

NodeHealth DecideNodeHealth(const std::vector<nlohmann::json>& probe_reports,
                            const std::vector<Region>& regions, int64_t now_ms,
                            const QuorumPolicy& policy);

}  // namespace ax::controller
