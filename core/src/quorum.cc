// Multi-vantage quorum (quorum.h): freshness, cut-off detection, vote counting
// and the human-readable reason. Pure: `now_ms` is an argument; output order is
// fixed by std::map iteration so equal inputs give byte-equal results.
#include "ax/quorum.h"

#include <algorithm>
#include <set>
#include <utility>

#include "ax/median.h"

namespace ax {
namespace {

// Per-node working data gathered while walking the vantages.
struct Tally {
  NodeVerdict verdict;
  std::vector<double> latencies;
  std::vector<int64_t> up_changed_at;  // counted Up votes' change times
  std::vector<int64_t> down_changed_at;
  int64_t load_observed_at_ms = 0;
  std::vector<std::string> notes;  // "vantage-c discounted: ..."
};

bool SeesAllDown(const VantageVerdicts& v, const QuorumPolicy& policy) {
  if (v.nodes.size() < policy.min_nodes_for_cutoff) return false;
  return std::all_of(v.nodes.begin(), v.nodes.end(), [](const auto& entry) {
    return entry.second.health == Health::kDown;
  });
}

// Does `other` see any node of `nodes` Up?
bool SeesAnyUp(const VantageVerdicts& other,
               const std::map<std::string, NodeStatus>& nodes) {
  for (const auto& [name, _] : nodes) {
    auto it = other.nodes.find(name);
    if (it != other.nodes.end() && it->second.health == Health::kUp) {
      return true;
    }
  }
  return false;
}

// A vantage that sees all its nodes down while a peer sees one of them up is
// more likely partitioned than right: if every vantage sees everything down,
// nobody qualifies and the outage stands.
std::set<std::string> FindCutOff(
    const std::vector<const VantageVerdicts*>& fresh,
    const QuorumPolicy& policy) {
  std::set<std::string> cut_off;
  for (const VantageVerdicts* v : fresh) {
    if (!SeesAllDown(*v, policy)) continue;
    for (const VantageVerdicts* other : fresh) {
      if (other != v && SeesAnyUp(*other, v->nodes)) {
        cut_off.insert(v->vantage);
        break;
      }
    }
  }
  return cut_off;
}

// When the present verdict formed: the k-th earliest change among the agreeing
// votes, k being how many were needed to win (or tie, for fail-open Up) against
// the current opposition. Stateless, so it assumes that opposition was there.
int64_t VerdictChangedAt(std::vector<int64_t> agreeing, size_t opposing,
                         bool tie) {
  std::sort(agreeing.begin(), agreeing.end());
  const size_t needed = std::max<size_t>(1, tie ? opposing : opposing + 1);
  return agreeing[std::min(needed, agreeing.size()) - 1];
}

void Decide(Tally& t) {
  NodeVerdict& v = t.verdict;
  if (v.up_votes == 0 && v.down_votes == 0) {
    v.health = Health::kUnknown;
    return;
  }
  const bool tie = v.up_votes == v.down_votes;
  if (v.up_votes >= v.down_votes) {
    v.health = Health::kUp;
    v.health_changed_at_ms =
        VerdictChangedAt(t.up_changed_at, v.down_votes, tie);
  } else {
    v.health = Health::kDown;
    v.health_changed_at_ms =
        VerdictChangedAt(t.down_changed_at, v.up_votes, false);
  }
}

std::string Reason(const Tally& t) {
  const NodeVerdict& v = t.verdict;
  std::string out = "no fresh up/down votes";
  if (v.health != Health::kUnknown) {
    const bool up = v.health == Health::kUp;
    const size_t reporting =
        v.counted.size() + v.stale.size() + v.discounted.size();
    out = std::to_string(up ? v.up_votes : v.down_votes) + "/" +
          std::to_string(reporting) + (up ? " vantages up" : " vantages down");
    const uint32_t minority = up ? v.down_votes : v.up_votes;
    if (minority > 0) {
      out += ", " + std::to_string(minority) + (up ? " down" : " up");
    }
  }
  if (v.unknown_votes > 0) {
    out += ", " + std::to_string(v.unknown_votes) + " unknown";
  }
  if (v.health == Health::kUp && v.up_votes == v.down_votes) {
    out += ": split vote, kept up (fail-open)";
  }
  for (size_t i = 0; i < t.notes.size(); ++i) {
    out += (i == 0 ? " (" : "; ") + t.notes[i];
  }
  if (!t.notes.empty()) out += ")";
  return out;
}

void Count(const std::string& vantage, int64_t observed_at_ms,
           const NodeStatus& status, Tally& t) {
  NodeVerdict& v = t.verdict;
  v.counted.push_back(vantage);
  switch (status.health) {
    case Health::kUp:
      ++v.up_votes;
      t.up_changed_at.push_back(status.health_changed_at_ms);
      break;
    case Health::kDown:
      ++v.down_votes;
      t.down_changed_at.push_back(status.health_changed_at_ms);
      break;
    case Health::kUnknown:
      ++v.unknown_votes;
      break;
  }
  if (status.latency_ms) t.latencies.push_back(*status.latency_ms);
  if (status.load && (!v.load || observed_at_ms > t.load_observed_at_ms)) {
    v.load = status.load;
    t.load_observed_at_ms = observed_at_ms;
  }
  if (status.error_rate &&
      (!v.error_rate || observed_at_ms > v.error_rate_at_ms)) {
    v.error_rate = status.error_rate;
    v.error_rate_at_ms = observed_at_ms;
  }
}

// The vote among `latest` (one report per vantage), `cut_off` ones
// discounted.
QuorumResult Vote(const std::map<std::string, const VantageVerdicts*>& latest,
                  const std::set<std::string>& cut_off, int64_t now_ms,
                  const QuorumPolicy& policy) {
  QuorumResult result;
  std::map<std::string, Tally> tallies;
  for (const auto& [name, report] : latest) {
    const bool future = IsFromTheFuture(report->observed_at_ms, now_ms, policy);
    const bool stale = IsStale(report->observed_at_ms, now_ms, policy);
    const bool discounted = !stale && !future && cut_off.count(name) > 0;
    if (future) result.future_vantages.push_back(name);
    if (stale) result.stale_vantages.push_back(name);
    if (discounted) result.cut_off_vantages.push_back(name);
    for (const auto& [node, status] : report->nodes) {
      Tally& t = tallies[node];
      if (future) {
        t.verdict.stale.push_back(name);
        t.notes.push_back(name + " ignored: report " +
                          std::to_string(report->observed_at_ms - now_ms) +
                          " ms ahead of now");
      } else if (stale) {
        t.verdict.stale.push_back(name);
        t.notes.push_back(name + " stale: report " +
                          std::to_string(now_ms - report->observed_at_ms) +
                          " ms old");
      } else if (discounted) {
        t.verdict.discounted.push_back(name);
        t.notes.push_back(name + " discounted: sees all nodes down");
      } else {
        Count(name, report->observed_at_ms, status, t);
      }
    }
  }

  for (auto& [node, t] : tallies) {
    Decide(t);
    t.verdict.latency_ms = Median(std::move(t.latencies));
    t.verdict.reason = Reason(t);
    result.nodes.emplace(node, std::move(t.verdict));
  }
  return result;
}

}  // namespace

bool IsStale(int64_t observed_at_ms, int64_t now_ms,
             const QuorumPolicy& policy) {
  return now_ms - observed_at_ms > policy.max_age_ms;
}

bool IsFromTheFuture(int64_t observed_at_ms, int64_t now_ms,
                     const QuorumPolicy& policy) {
  return observed_at_ms - now_ms > policy.max_future_ms;
}

std::map<std::string, const VantageVerdicts*> LatestPerVantage(
    const std::vector<VantageVerdicts>& reports) {
  std::map<std::string, const VantageVerdicts*> latest;
  for (const VantageVerdicts& r : reports) {
    auto [it, inserted] = latest.emplace(r.vantage, &r);
    if (!inserted && r.observed_at_ms > it->second->observed_at_ms) {
      it->second = &r;
    }
  }
  return latest;
}

QuorumResult DecideQuorum(const std::vector<VantageVerdicts>& reports,
                          int64_t now_ms, const QuorumPolicy& policy) {
  const auto latest = LatestPerVantage(reports);
  std::vector<const VantageVerdicts*> fresh;
  for (const auto& [name, report] : latest) {
    if (!IsStale(report->observed_at_ms, now_ms, policy) &&
        !IsFromTheFuture(report->observed_at_ms, now_ms, policy)) {
      fresh.push_back(report);
    }
  }
  return Vote(latest, FindCutOff(fresh, policy), now_ms, policy);
}

QuorumResult DecideGroupQuorum(const std::vector<VantageVerdicts>& reports,
                               const VantageGroup& group,
                               const QuorumResult& global, int64_t now_ms,
                               const QuorumPolicy& policy) {
  std::map<std::string, const VantageVerdicts*> members;
  for (const auto& [name, report] : LatestPerVantage(reports)) {
    if (InVantageGroup(group, report->identity)) members.emplace(name, report);
  }
  const std::set<std::string> cut_off(global.cut_off_vantages.begin(),
                                      global.cut_off_vantages.end());
  return Vote(members, cut_off, now_ms, policy);
}

std::vector<std::string> CountedVantages(const QuorumResult& result) {
  std::set<std::string> counted;
  for (const auto& [node, verdict] : result.nodes) {
    counted.insert(verdict.counted.begin(), verdict.counted.end());
  }
  return {counted.begin(), counted.end()};
}

GroupQuorums DecideGroupQuorums(const std::vector<Region>& regions,
                                const std::vector<VantageVerdicts>& reports,
                                const QuorumResult& global, int64_t now_ms,
                                const QuorumPolicy& policy) {
  GroupQuorums out;
  for (const Region& region : regions) {
    const std::optional<VantageGroup> group = VantageGroupOf(region);
    if (!group || out.count(group->name)) continue;
    out.emplace(group->name,
                DecideGroupQuorum(reports, *group, global, now_ms, policy));
  }
  return out;
}

StatusMap QuorumResult::ToStatusMap() const {
  StatusMap out;
  for (const auto& [node, v] : nodes) {
    out.emplace(node, NodeStatus{v.health, v.latency_ms, v.load,
                                 v.health_changed_at_ms, v.error_rate});
  }
  return out;
}

}  // namespace ax
