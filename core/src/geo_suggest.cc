// AggregateMeasurements and SuggestGeoOverrides (geo_suggest.h): group by
// client prefix and time slice, medians per node, the classified Region's
// best against the overall best, margins and time windows, then a proposal
// naming the Region where the best node serves.
#include "ax/geo_suggest.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <tuple>

namespace ax {
namespace {

// Medians are reported to 0.1 ms: finer is noise.
double Round(double ms) { return std::round(ms * 10) / 10; }

using NodeHistograms = std::map<std::string, LatencyHistogram>;

// Per node with at least `min_samples` (and one): its median.
std::map<std::string, double> NodeMedians(const NodeHistograms& by_node,
                                          uint64_t min_samples) {
  std::map<std::string, double> out;
  for (const auto& [node, latency] : by_node) {
    if (latency.count() >= std::max<uint64_t>(min_samples, 1)) {
      out[node] = Round(*latency.Median());
    }
  }
  return out;
}

// The Region a proposal moves the prefix to: one listing `node`, keeping the
// classified Region's carrier where one does, the node's priority there
// next, then name order.
const Region* TargetRegion(const std::vector<Region>& regions,
                           const std::string& node, const Region* classified) {
  const Region* best = nullptr;
  std::tuple<bool, size_t, std::string> best_key;
  for (const Region& r : regions) {
    const auto at = std::find(r.nodes.begin(), r.nodes.end(), node);
    if (at == r.nodes.end()) continue;
    const bool other_isp = classified && r.isp != classified->isp;
    std::tuple<bool, size_t, std::string> key{
        other_isp, static_cast<size_t>(at - r.nodes.begin()), r.meta.name};
    if (!best || key < best_key) {
      best = &r;
      best_key = std::move(key);
    }
  }
  return best;
}

// In how many of the time slices `best` beat `other` (won), of the slices
// where both had enough samples (compared).
std::pair<uint32_t, uint32_t> WindowsWon(
    const std::vector<NodeHistograms>& windows, const std::string& best,
    const std::string& other, const SuggestOptions& o) {
  uint32_t won = 0;
  uint32_t compared = 0;
  for (const NodeHistograms& window : windows) {
    const auto medians = NodeMedians(window, o.min_window_samples);
    const auto b = medians.find(best);
    const auto r = medians.find(other);
    if (b == medians.end() || r == medians.end()) continue;
    ++compared;
    won += b->second < r->second;
  }
  return {won, compared};
}

// One sample or one report row, before the prefix's slices are known.
struct Entry {
  int64_t at;  // unix seconds: the sample's time, the report window's middle
  const std::string* node;
  double ms;                        // a sample's
  const LatencyHistogram* latency;  // a report row's; null for a sample
};

struct Group {
  int64_t from = 0;
  int64_t to = 0;
  std::vector<Entry> entries;
};

// "geo-120-230-7-0-24": a Kubernetes name for the prefix's proposal.
std::string ProposalName(const IpPrefix& prefix) {
  std::string name = "geo-";
  for (char c : FormatPrefix(prefix)) {
    const bool keep = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
    name += keep ? c : '-';
  }
  // "::" leaves runs of dashes; names may not end in one either.
  name.erase(std::unique(name.begin(), name.end(),
                         [](char a, char b) { return a == '-' && b == '-'; }),
             name.end());
  return name;
}

std::string Ms(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f ms", v);
  return buf;
}

GeoOverride Proposal(const PrefixFinding& f, int64_t from, int64_t to,
                     int64_t now_s, const SuggestOptions& o) {
  GeoOverride out;
  out.meta.name = ProposalName(f.prefix);
  out.cidrs = {f.prefix};
  out.region = f.target;
  out.approved = false;
  out.expires_at = now_s + o.expires_after_s;
  out.reason =
      "measured: " + f.best_node + " " + Ms(f.best_ms) + " median vs " +
      f.region_node + " " + Ms(f.region_ms) + " of Region " + f.region +
      " (where the prefix is classified), " + std::to_string(f.samples) +
      " samples, faster in " + std::to_string(f.windows_won) + " of " +
      std::to_string(f.windows_compared) + " time windows";
  out.evidence = GeoOverrideEvidence{.samples = f.samples,
                                     .best_node = f.best_node,
                                     .best_ms = f.best_ms,
                                     .db_region = f.region,
                                     .db_node = f.region_node,
                                     .db_ms = f.region_ms,
                                     .from = from,
                                     .to = to};
  return out;
}

}  // namespace

const char* SuggestVerdictName(SuggestVerdict v) {
  switch (v) {
    case SuggestVerdict::kProposed:
      return "proposed";
    case SuggestVerdict::kAgrees:
      return "agrees";
    case SuggestVerdict::kFewSamples:
      return "few-samples";
    case SuggestVerdict::kUnclassified:
      return "unclassified";
    case SuggestVerdict::kRegionUnmeasured:
      return "region-unmeasured";
    case SuggestVerdict::kSmallMargin:
      return "small-margin";
    case SuggestVerdict::kInconsistent:
      return "inconsistent";
    case SuggestVerdict::kNoRegionForNode:
      return "no-region-for-node";
  }
  return "?";
}

std::vector<PrefixMeasurements> AggregateMeasurements(
    const std::vector<Measurement>& samples,
    const std::vector<MeasurementReport>& reports, const SuggestOptions& o) {
  std::map<IpPrefix, Group> groups;
  const auto add = [&](const IpPrefix& prefix, int64_t from, int64_t to,
                       const Entry& entry) {
    const int length = std::min(
        prefix.length,
        prefix.address.family == IpFamily::kV4 ? o.v4_prefix : o.v6_prefix);
    auto [it, fresh] =
        groups.try_emplace({Mask(prefix.address, length), length});
    Group& g = it->second;
    g.from = fresh ? from : std::min(g.from, from);
    g.to = fresh ? to : std::max(g.to, to);
    g.entries.push_back(entry);
  };
  for (const Measurement& m : samples) {
    add({m.client, 128}, m.time, m.time, {m.time, &m.node, m.ms, nullptr});
  }
  for (const MeasurementReport& r : reports) {
    const int64_t from = r.from_ms / 1000;
    const int64_t to = r.to_ms / 1000;
    for (const MeasuredPrefix& p : r.prefixes) {
      for (const MeasuredNode& n : p.nodes) {
        add(p.prefix, from, to,
            {from + (to - from) / 2, &n.node, 0, &n.latency});
      }
    }
  }
  std::vector<PrefixMeasurements> out;
  out.reserve(groups.size());
  const uint32_t windows = std::max<uint32_t>(o.windows, 1);
  for (const auto& [prefix, g] : groups) {
    PrefixMeasurements& pm = out.emplace_back();
    pm.prefix = prefix;
    pm.from = g.from;
    pm.to = g.to;
    pm.windows.resize(windows);
    const double width = static_cast<double>(g.to - g.from + 1) / windows;
    for (const Entry& e : g.entries) {
      const auto slice = std::min<size_t>(
          static_cast<size_t>((e.at - g.from) / width), windows - 1);
      LatencyHistogram& h = pm.windows[slice][*e.node];
      if (e.latency) {
        h.Merge(*e.latency);
      } else {
        h.Add(e.ms);
      }
    }
  }
  return out;
}

Suggestions SuggestGeoOverrides(
    const std::vector<PrefixMeasurements>& measurements,
    const std::vector<Region>& regions,
    const std::function<std::string(const IpPrefix&)>& classified,
    int64_t now_s, const SuggestOptions& o) {
  Suggestions out;
  for (const PrefixMeasurements& pm : measurements) {
    NodeHistograms overall;
    for (const NodeHistograms& window : pm.windows) {
      for (const auto& [node, latency] : window) overall[node].Merge(latency);
    }
    uint64_t samples = 0;
    for (const auto& [node, latency] : overall) samples += latency.count();
    PrefixFinding f;
    f.prefix = pm.prefix;
    f.samples = static_cast<uint32_t>(
        std::min<uint64_t>(samples, std::numeric_limits<uint32_t>::max()));
    f.region = classified(pm.prefix);
    const auto medians = NodeMedians(overall, o.min_samples);
    const auto best = std::min_element(
        medians.begin(), medians.end(),
        [](const auto& a, const auto& b) { return a.second < b.second; });
    if (best != medians.end()) {
      f.best_node = best->first;
      f.best_ms = best->second;
    }
    const auto region =
        std::find_if(regions.begin(), regions.end(),
                     [&](const Region& r) { return r.meta.name == f.region; });
    if (region != regions.end()) {
      for (const std::string& node : region->nodes) {
        const auto it = medians.find(node);
        if (it != medians.end() &&
            (f.region_node.empty() || it->second < f.region_ms)) {
          f.region_node = node;
          f.region_ms = it->second;
        }
      }
    }
    const Region* target =
        best == medians.end()
            ? nullptr
            : TargetRegion(regions, f.best_node,
                           region != regions.end() ? &*region : nullptr);
    if (best == medians.end()) {
      f.verdict = SuggestVerdict::kFewSamples;
    } else if (region == regions.end()) {
      f.verdict = SuggestVerdict::kUnclassified;
    } else if (std::find(region->nodes.begin(), region->nodes.end(),
                         f.best_node) != region->nodes.end()) {
      f.verdict = SuggestVerdict::kAgrees;
    } else if (f.region_node.empty()) {
      f.verdict = SuggestVerdict::kRegionUnmeasured;
    } else if (f.region_ms - f.best_ms < o.min_margin_ms ||
               f.region_ms - f.best_ms < o.min_margin_ratio * f.region_ms) {
      f.verdict = SuggestVerdict::kSmallMargin;
    } else if (!target) {
      f.verdict = SuggestVerdict::kNoRegionForNode;
    } else {
      std::tie(f.windows_won, f.windows_compared) =
          WindowsWon(pm.windows, f.best_node, f.region_node, o);
      if (f.windows_won < o.min_windows_won) {
        f.verdict = SuggestVerdict::kInconsistent;
      } else {
        f.verdict = SuggestVerdict::kProposed;
        f.target = target->meta.name;
        out.proposals.push_back(Proposal(f, pm.from, pm.to, now_s, o));
      }
    }
    out.findings.push_back(std::move(f));
  }
  return out;
}

}  // namespace ax
