// DecideNodeHealth (node_health.h): parse reports, run the core quorum, then
// label each report and each (node, vantage) with how it counted, using the
// quorum's own freshness and per-vantage choice (IsStale, LatestPerVantage).
#include "ax/controller/node_health.h"

#include <algorithm>

#include "ax/enum_names.h"
#include "ax/probe_report.h"

namespace ax::controller {
namespace {

constexpr NameTable<Vote, 4> kVoteNames{{
    {Vote::kCounted, "Counted"},
    {Vote::kStale, "Stale"},
    {Vote::kFuture, "Future"},
    {Vote::kDiscounted, "Discounted"},
}};

}  // namespace

const char* VoteName(Vote vote) { return NameOf(kVoteNames, vote); }

NodeHealth DecideNodeHealth(const std::vector<nlohmann::json>& probe_reports,
                            const std::vector<Region>& regions, int64_t now_ms,
                            const QuorumPolicy& policy) {
  NodeHealth out;
  std::vector<ProbeReport> parsed;
  std::vector<VantageVerdicts> verdicts;
  std::vector<size_t> parsed_of;  // input index -> index into parsed
  constexpr size_t kNone = SIZE_MAX;
  for (const nlohmann::json& object : probe_reports) {
    ReportView view{.object = RefOf(object)};
    ParseProbeReportResult r = ParseProbeReport(object);
    if (!r.report) {
      view.use = ReportUse::kInvalid;
      view.errors = std::move(r.errors);
      parsed_of.push_back(kNone);
    } else {
      view.vantage = r.report->vantage;
      view.observed_at_ms = r.report->observed_at_ms;
      parsed_of.push_back(parsed.size());
      verdicts.push_back(ToVantageVerdicts(*r.report));
      parsed.push_back(std::move(*r.report));
    }
    out.reports.push_back(std::move(view));
  }
  out.quorum = DecideQuorum(verdicts, now_ms, policy);
  out.groups =
      DecideGroupQuorums(regions, verdicts, out.quorum, now_ms, policy);
  const auto latest = LatestPerVantage(verdicts);
  auto vote_of = [&](const std::string& vantage, int64_t observed_at_ms) {
    if (IsFromTheFuture(observed_at_ms, now_ms, policy)) return Vote::kFuture;
    if (IsStale(observed_at_ms, now_ms, policy)) return Vote::kStale;
    const auto& cut = out.quorum.cut_off_vantages;
    return std::binary_search(cut.begin(), cut.end(), vantage)
               ? Vote::kDiscounted
               : Vote::kCounted;
  };

  for (const auto& [vantage, chosen] : latest) {
    const ProbeReport& report =
        parsed[static_cast<size_t>(chosen - verdicts.data())];
    const Vote vote = vote_of(vantage, report.observed_at_ms);
    for (const ProbeNodeReport& r : report.results) {
      out.vantages[r.node].push_back({vantage, r.health, vote, r.latency_ms,
                                      report.observed_at_ms,
                                      r.consecutive_failures});
    }
    // IsStale turns true one millisecond past max_age; a report from the
    // future starts to count once now is within max_future of it.
    const int64_t change_at =
        vote == Vote::kFuture ? report.observed_at_ms - policy.max_future_ms
                              : report.observed_at_ms + policy.max_age_ms + 1;
    if (vote != Vote::kStale) {
      out.next_change_ms =
          std::min(out.next_change_ms.value_or(change_at), change_at);
    }
  }

  for (size_t i = 0; i < out.reports.size(); ++i) {
    ReportView& view = out.reports[i];
    if (parsed_of[i] == kNone) continue;
    if (latest.at(view.vantage) != &verdicts[parsed_of[i]]) {
      view.use = ReportUse::kSuperseded;
      continue;
    }
    switch (vote_of(view.vantage, view.observed_at_ms)) {
      case Vote::kCounted:
        view.use = ReportUse::kCounted;
        break;
      case Vote::kStale:
        view.use = ReportUse::kStale;
        break;
      case Vote::kFuture:
        view.use = ReportUse::kFuture;
        break;
      case Vote::kDiscounted:
        view.use = ReportUse::kDiscounted;
        break;
    }
  }
  return out;
}

}  // namespace ax::controller
