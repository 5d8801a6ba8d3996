// SuggestGeoOverrides (geo_suggest.h): group by client prefix, medians per
// node, the classified Region's best against the overall best, margins and
// time windows, then a proposal naming the Region where the best node
// serves.
#include "ax/geo_suggest.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>

#include "ax/median.h"

namespace ax {
namespace {

// Medians are reported to 0.1 ms: finer is noise.
double Round(double ms) { return std::round(ms * 10) / 10; }

struct NodeStats {
  double median = 0;
  size_t samples = 0;
};

// Per node with at least `min_samples`: its median.
std::map<std::string, NodeStats> NodeMedians(
    const std::vector<const Measurement*>& samples, uint32_t min_samples) {
  std::map<std::string, std::vector<double>> by_node;
  for (const Measurement* m : samples) by_node[m->node].push_back(m->ms);
  std::map<std::string, NodeStats> out;
  for (auto& [node, values] : by_node) {
    const size_t count = values.size();
    if (count >= min_samples) {
      out[node] = {Round(*Median(std::move(values))), count};
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

// The first and last time among `samples` (not empty).
std::pair<int64_t, int64_t> TimeSpan(
    const std::vector<const Measurement*>& samples) {
  const auto [first, last] =
      std::minmax_element(samples.begin(), samples.end(),
                          [](const Measurement* a, const Measurement* b) {
                            return a->time < b->time;
                          });
  return {(*first)->time, (*last)->time};
}

// In how many of the time slices of [first, last] `best` beat `other` (won),
// of the slices where both had enough samples (compared).
std::pair<uint32_t, uint32_t> WindowsWon(
    const std::vector<const Measurement*>& samples, int64_t first, int64_t last,
    const std::string& best, const std::string& other,
    const SuggestOptions& o) {
  const uint32_t windows = std::max<uint32_t>(o.windows, 1);
  const double width = static_cast<double>(last - first + 1) / windows;
  std::vector<std::vector<const Measurement*>> slices(windows);
  for (const Measurement* m : samples) {
    const auto slice = static_cast<size_t>((m->time - first) / width);
    slices[std::min<size_t>(slice, windows - 1)].push_back(m);
  }
  uint32_t won = 0;
  uint32_t compared = 0;
  for (const auto& slice : slices) {
    const auto medians = NodeMedians(slice, o.min_window_samples);
    const auto b = medians.find(best);
    const auto r = medians.find(other);
    if (b == medians.end() || r == medians.end()) continue;
    ++compared;
    won += b->second.median < r->second.median;
  }
  return {won, compared};
}

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

Suggestions SuggestGeoOverrides(
    const std::vector<Measurement>& measurements,
    const std::vector<Region>& regions,
    const std::function<std::string(const IpPrefix&)>& classified,
    int64_t now_s, const SuggestOptions& o) {
  std::map<IpPrefix, std::vector<const Measurement*>> by_prefix;
  for (const Measurement& m : measurements) {
    const int length =
        m.client.family == IpFamily::kV4 ? o.v4_prefix : o.v6_prefix;
    by_prefix[{Mask(m.client, length), length}].push_back(&m);
  }
  Suggestions out;
  for (const auto& [prefix, samples] : by_prefix) {
    PrefixFinding f;
    f.prefix = prefix;
    f.samples = static_cast<uint32_t>(samples.size());
    f.region = classified(prefix);
    const auto medians = NodeMedians(samples, o.min_samples);
    const auto best = std::min_element(
        medians.begin(), medians.end(), [](const auto& a, const auto& b) {
          return a.second.median < b.second.median;
        });
    if (best != medians.end()) {
      f.best_node = best->first;
      f.best_ms = best->second.median;
    }
    const auto region =
        std::find_if(regions.begin(), regions.end(),
                     [&](const Region& r) { return r.meta.name == f.region; });
    if (region != regions.end()) {
      for (const std::string& node : region->nodes) {
        const auto it = medians.find(node);
        if (it != medians.end() &&
            (f.region_node.empty() || it->second.median < f.region_ms)) {
          f.region_node = node;
          f.region_ms = it->second.median;
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
      const auto [from, to] = TimeSpan(samples);
      std::tie(f.windows_won, f.windows_compared) =
          WindowsWon(samples, from, to, f.best_node, f.region_node, o);
      if (f.windows_won < o.min_windows_won) {
        f.verdict = SuggestVerdict::kInconsistent;
      } else {
        f.verdict = SuggestVerdict::kProposed;
        f.target = target->meta.name;
        out.proposals.push_back(Proposal(f, from, to, now_s, o));
      }
    }
    out.findings.push_back(std::move(f));
  }
  return out;
}

}  // namespace ax
