// Where each Region's clients go, replayed through the data plane's pick.
#include "axctl/traffic_shares.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <utility>

#include "ax/decide.h"
#include "ax/hash.h"
#include "ax/rng.h"
#include "axctl/text_table.h"

namespace ax {
namespace {

using nlohmann::json;

std::string StepOf(const Snapshot& snapshot, const Answer& answer) {
  const Route& route = snapshot.routes[answer.route];
  std::string step = RouteSourceName(route.source);
  if (!route.via.empty()) step += " " + route.via;
  if (answer.spilled) step += " (spilled)";
  return step;
}

double Share(uint32_t count, uint32_t clients) {
  return clients == 0 ? 0 : std::round(1e4 * count / clients) / 1e4;
}

// name -> {before, after} over the union of both sides' names.
json Pairs(const std::map<std::string, uint32_t>* before, uint32_t n_before,
           const std::map<std::string, uint32_t>* after, uint32_t n_after,
           double min_change, bool& changed) {
  std::set<std::string> names;
  for (const auto* side : {before, after}) {
    if (side == nullptr) continue;
    for (const auto& [name, count] : *side) names.insert(name);
  }
  json out = json::object();
  for (const std::string& name : names) {
    auto count = [&](const std::map<std::string, uint32_t>* side) {
      if (side == nullptr) return 0u;
      auto it = side->find(name);
      return it == side->end() ? 0u : it->second;
    };
    const double b = Share(count(before), n_before);
    const double a = Share(count(after), n_after);
    if (std::abs(a - b) >= min_change) changed = true;
    out[name] = {{"before", b}, {"after", a}};
  }
  return out;
}

std::string Percent(double share) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "%.1f%%", 100 * share);
  return buf;
}

}  // namespace

std::vector<RegionShares> SampleShares(const Snapshot& snapshot,
                                       const SampleOptions& options) {
  std::vector<RegionShares> out;
  // A `default: true` Region claims every client: nobody is unclassified.
  const bool catch_all =
      std::any_of(snapshot.regions.begin(), snapshot.regions.end(),
                  [](const SnapshotRegion& r) { return r.match.catch_all; });
  for (const SnapshotDomain& domain : snapshot.domains) {
    // routes[i] for region i, then the unclassified clients' route.
    for (uint32_t r = 0; r < domain.routes.size(); ++r) {
      const bool classified = r < snapshot.regions.size();
      if (!classified && catch_all) continue;
      RegionShares shares{domain.name,
                          classified ? snapshot.regions[r].name : kUnclassified,
                          options.clients_per_region,
                          {},
                          {}};
      // The same clients and draws for a (Domain, Region) in any snapshot:
      // two tables compared differ only where their routes do.
      const uint64_t stream =
          options.seed ^ Fnv1a64(domain.name + "/" + shares.region);
      Rng cohorts(stream), picks(~stream);
      for (uint32_t i = 0; i < options.clients_per_region; ++i) {
        const ClientContext client{.cohort = cohorts.Next()};
        const Answer answer =
            Decide(snapshot, domain, classified ? r : kNoIndex, client,
                   options.family, options.now_ms, picks);
        ++shares.lead[answer.count > 0 ? snapshot.nodes[answer.nodes[0]].name
                                       : kDomainFallbackLead];
        const std::string step = StepOf(snapshot, answer);
        ++shares.steps[step];
        uint64_t signature = Fnv1a64(step);
        for (uint32_t k = 0; k < answer.count; ++k) {
          signature =
              Fnv1a64(snapshot.nodes[answer.nodes[k]].name + ";", signature);
        }
        shares.answers.push_back(signature);
      }
      out.push_back(std::move(shares));
    }
  }
  return out;
}

json CompareShares(const std::vector<RegionShares>& before,
                   const std::vector<RegionShares>& after,
                   uint32_t clients_per_region, double min_change) {
  using Key = std::pair<std::string, std::string>;
  std::map<Key, std::pair<const RegionShares*, const RegionShares*>> pairs;
  std::vector<Key> order;  // before's order, then what only `after` has
  for (const RegionShares& s : before) {
    order.push_back({s.domain, s.region});
    pairs[order.back()].first = &s;
  }
  for (const RegionShares& s : after) {
    auto [it, added] = pairs.try_emplace({s.domain, s.region});
    if (added) order.push_back(it->first);
    it->second.second = &s;
  }
  json regions = json::array();
  for (const Key& key : order) {
    const auto [b, a] = pairs.at(key);
    const uint32_t nb = b ? b->clients : 0, na = a ? a->clients : 0;
    bool changed = b == nullptr || a == nullptr;
    json nodes = Pairs(b ? &b->lead : nullptr, nb, a ? &a->lead : nullptr, na,
                       min_change, changed);
    json steps = Pairs(b ? &b->steps : nullptr, nb, a ? &a->steps : nullptr, na,
                       min_change, changed);
    uint32_t moved = 0;
    if (b != nullptr && a != nullptr &&
        b->answers.size() == a->answers.size()) {
      for (size_t i = 0; i < b->answers.size(); ++i) {
        moved += b->answers[i] != a->answers[i];
      }
    } else {
      moved = std::max(nb, na);  // one side has no such pair: all changed
    }
    const double answers_changed = Share(moved, std::max(nb, na));
    if (answers_changed >= min_change && moved > 0) changed = true;
    regions.push_back({{"domain", key.first},
                       {"region", key.second},
                       {"changed", changed},
                       {"answersChanged", answers_changed},
                       {"nodes", std::move(nodes)},
                       {"steps", std::move(steps)}});
  }
  // The 95% interval of one estimated share is widest at 50%.
  const double error =
      clients_per_region == 0 ? 1 : 1.96 * std::sqrt(0.25 / clients_per_region);
  return {{"clientsPerRegion", clients_per_region},
          {"minChange", min_change},
          {"samplingError95", std::round(1e4 * error) / 1e4},
          {"regions", std::move(regions)}};
}

std::string SharesText(const json& model, bool all) {
  std::vector<std::vector<std::string>> rows{
      {"DOMAIN", "REGION", "ANSWERED BY", "BEFORE", "AFTER"}};
  size_t changed = 0, total = 0;
  const double min_change = model.value("minChange", 0.0);
  for (const json& r : model.at("regions")) {
    ++total;
    if (r.at("changed").get<bool>()) ++changed;
    const double moved = r.value("answersChanged", 0.0);
    if (all || moved > 0) {
      rows.push_back({r.at("domain"), r.at("region"),
                      "clients whose answer changes", "", Percent(moved)});
    }
    for (const auto& [part, label] :
         {std::pair{"nodes", "node "}, std::pair{"steps", "step "}}) {
      for (const auto& [name, v] : r.at(part).items()) {
        const double b = v.at("before"), a = v.at("after");
        if (!all && std::abs(a - b) < std::max(min_change, 1e-9)) continue;
        rows.push_back({r.at("domain"), r.at("region"), label + name,
                        Percent(b), Percent(a)});
      }
    }
  }
  std::string out;
  if (rows.size() > 1) out += TextTable(rows);
  char line[160];
  std::snprintf(line, sizeof(line),
                "%zu of %zu (domain, region) pairs changed; %u sampled "
                "clients each (shares within +-%.1f points, 95%%)\n",
                changed, total, model.value("clientsPerRegion", 0u),
                100 * model.value("samplingError95", 0.0));
  return out + line;
}

}  // namespace ax
