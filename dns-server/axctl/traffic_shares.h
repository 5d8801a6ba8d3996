// Where each Region's clients go, estimated by replaying the data plane's own
// pick (decide.h) over a synthetic mix of client cohorts per (Domain, Region),
// and the comparison of two such estimates (axctl diff and simulate). Pure:
// the seed and the clock are arguments. Where snapshots come from and how the
// comparison is printed live elsewhere.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ax/snapshot.h"

namespace ax {

// The clients of one Region for one Domain, by what their answers lead with
// and which step of the fallback chain answered them.
struct RegionShares {
  std::string domain;
  std::string region;  // kUnclassified for clients no Region claims
  uint32_t clients = 0;
  // Node name (or kDomainFallbackLead) -> clients whose answer it leads.
  std::map<std::string, uint32_t> lead;
  // "Region", "FallbackRegion cn-north-unicom", "AllHealthy", ... (with
  // " (spilled)" for the spilled share) -> clients.
  std::map<std::string, uint32_t> steps;
  // Per client, in sampling order: its whole answer (the nodes, in order,
  // hashed), so two samplings of the same clients can say whose answer
  // changed, not only where the shares went.
  std::vector<uint64_t> answers;
};

inline constexpr char kUnclassified[] = "(unclassified)";
inline constexpr char kDomainFallbackLead[] = "(domain fallback)";

struct SampleOptions {
  // Each client is a cohort drawn from the seeded RNG: a stand-in for a
  // client /24 (ClientCohort), so canary and spill shares come out as the
  // hash spreads real subnets.
  uint32_t clients_per_region = 2000;
  uint64_t seed = 1;
  int64_t now_ms = 0;
  IpFamily family = IpFamily::kV4;  // A queries; kV6: AAAA
};

// Every Domain of `snapshot` by every Region (and the unclassified, unless a
// default Region claims them), in the snapshot's order.
std::vector<RegionShares> SampleShares(const Snapshot& snapshot,
                                       const SampleOptions& options);

// `before` against `after` per (Domain, Region) as shares (0..1): one JSON
// model {clientsPerRegion, regions: [{domain, region, changed,
// answersChanged, nodes: {name: {before, after}}, steps: {...}}]}.
// answersChanged is the share of clients whose whole answer differs. A pair
// is changed when that or a share moved by at least `min_change`.
nlohmann::json CompareShares(const std::vector<RegionShares>& before,
                             const std::vector<RegionShares>& after,
                             uint32_t clients_per_region, double min_change);

// The model as text: one line per node and step whose share moved (every
// one with `all`), then how many pairs did not change.
std::string SharesText(const nlohmann::json& model, bool all);

}  // namespace ax
