// geodb diff: each source compiled into a DiffSide, the two overlaid range
// by range and counted; the report as text or JSON.
#include "axctl/geodb_diff.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <limits>
#include <nlohmann/json.hpp>
#include <queue>
#include <unordered_map>

#include "ax/isp_sets.h"
#include "axctl/geo_flags.h"
#include "axctl/geodb_command.h"

namespace ax {
namespace {

using Json = nlohmann::ordered_json;

void Count(FieldCounts& counts, const std::string& a, const std::string& b,
           double size) {
  if (a.empty() && b.empty()) return;
  if (a.empty()) {
    counts.only_b += size;
  } else if (b.empty()) {
    counts.only_a += size;
  } else if (a == b) {
    counts.agree += size;
  } else {
    counts.disagree += size;
  }
}

bool SaysAnything(const DiffFacts& f) {
  return !f.country.empty() || !f.subdivision.empty() || !f.carrier.empty();
}

// Whether a field both sources know differs.
bool Disagree(const DiffFacts& a, const DiffFacts& b) {
  auto differs = [](const std::string& x, const std::string& y) {
    return !x.empty() && !y.empty() && x != y;
  };
  return differs(a.country, b.country) ||
         differs(a.subdivision, b.subdivision) || differs(a.carrier, b.carrier);
}

// The address of a range bound: IPv4 keys are addresses, IPv6 keys the
// upper halves (`last`: the lower half all ones).
IpAddress AddressOf(uint32_t key, bool) {
  IpAddress ip;
  for (int i = 0; i < 4; ++i)
    ip.bytes[i] = static_cast<uint8_t>(key >> (24 - 8 * i));
  return ip;
}
IpAddress AddressOf(uint64_t key, bool last) {
  IpAddress ip{.family = IpFamily::kV6};
  for (int i = 0; i < 8; ++i) {
    ip.bytes[i] = static_cast<uint8_t>(key >> (56 - 8 * i));
    ip.bytes[8 + i] = last ? 0xFF : 0;
  }
  return ip;
}

template <typename Key>
DiffExample Example(Key first, Key last, double size, const DiffFacts& a,
                    const DiffFacts& b) {
  DiffExample example{.first = FormatIp(AddressOf(first, false)),
                      .last = FormatIp(AddressOf(last, true)),
                      .size = size,
                      .a = a,
                      .b = b};
  // The widest block starting at `first` inside the range: the range when
  // it ends where the range does.
  const int length = dns::RangeTable<Key>::ScopeWithin(first, first, last);
  constexpr int kBits = std::numeric_limits<Key>::digits;
  const Key block_last =
      first | (length == kBits ? Key{0} : static_cast<Key>(~Key{0} >> length));
  if (block_last == last) example.prefix_length = length;
  return example;
}

template <typename Key>
FamilyDiff DiffFamily(const DiffSide& a, const dns::RangeList<Key>& a_ranges,
                      const DiffSide& b, const dns::RangeList<Key>& b_ranges,
                      const DiffOptions& options) {
  // Keys per unit: a /24 holds 256 IPv4 addresses, a /48 65,536 IPv6 /64s.
  constexpr double kUnit = sizeof(Key) == 4 ? 256.0 : 65536.0;
  // Each distinct (A's value, B's value) once.
  std::vector<std::pair<uint32_t, uint32_t>> pairs;
  std::unordered_map<uint64_t, uint32_t> pair_ids;
  const dns::RangeList<Key> combined =
      dns::CombineRanges(a_ranges, b_ranges, [&](uint32_t x, uint32_t y) {
        const auto [it, added] = pair_ids.try_emplace(
            uint64_t{x} << 32 | y, static_cast<uint32_t>(pairs.size()));
        if (added) pairs.emplace_back(x, y);
        return it->second;
      });
  std::vector<bool> counted(pairs.size());
  std::vector<bool> disagrees(pairs.size());
  for (size_t p = 0; p < pairs.size(); ++p) {
    const DiffFacts& fa = a.values[pairs[p].first];
    const DiffFacts& fb = b.values[pairs[p].second];
    counted[p] = options.country.empty() || fa.country == options.country ||
                 fb.country == options.country;
    disagrees[p] = counted[p] && Disagree(fa, fb);
  }
  // The largest disagreeing ranges so far, the least of them on top (by
  // size, then later addresses first).
  struct Candidate {
    double size;
    size_t range;
    bool operator<(const Candidate& o) const {
      return size != o.size ? size > o.size : range < o.range;
    }
  };
  std::priority_queue<Candidate> largest;
  std::vector<double> sizes(pairs.size());
  for (size_t i = 0; i < combined.size(); ++i) {
    const Key first = combined[i].start;
    const Key last = i + 1 < combined.size() ? combined[i + 1].start - 1
                                             : std::numeric_limits<Key>::max();
    const double size = (static_cast<double>(last - first) + 1) / kUnit;
    const uint32_t pair = combined[i].value;
    sizes[pair] += size;
    if (disagrees[pair] && options.examples > 0) {
      largest.push({size, i});
      if (largest.size() > options.examples) largest.pop();
    }
  }

  FamilyDiff out;
  for (size_t p = 0; p < pairs.size(); ++p) {
    if (!counted[p]) continue;
    const DiffFacts& fa = a.values[pairs[p].first];
    const DiffFacts& fb = b.values[pairs[p].second];
    const double size = sizes[p];
    const bool says_a = SaysAnything(fa);
    const bool says_b = SaysAnything(fb);
    if (says_a && says_b) {
      out.both += size;
    } else if (says_a) {
      out.only_a += size;
    } else if (says_b) {
      out.only_b += size;
    }
    Count(out.country, fa.country, fb.country, size);
    Count(out.subdivision, fa.subdivision, fb.subdivision, size);
    Count(out.carrier, fa.carrier, fb.carrier, size);
    if (!fa.subdivision.empty()) {
      FamilyDiff::Subdivision& row = out.by_subdivision[fa.subdivision];
      row.size += size;
      Count(row.subdivision, fa.subdivision, fb.subdivision, size);
      Count(row.carrier, fa.carrier, fb.carrier, size);
    }
    if (!fa.carrier.empty() || !fb.carrier.empty()) {
      out.by_carrier[{fa.carrier, fb.carrier}] += size;
    }
  }
  for (; !largest.empty(); largest.pop()) {
    const size_t i = largest.top().range;
    const Key first = combined[i].start;
    const Key last = i + 1 < combined.size() ? combined[i + 1].start - 1
                                             : std::numeric_limits<Key>::max();
    out.largest.push_back(Example(first, last, largest.top().size,
                                  a.values[pairs[combined[i].value].first],
                                  b.values[pairs[combined[i].value].second]));
  }
  std::reverse(out.largest.begin(), out.largest.end());
  return out;
}

// By A's subdivision, the most disagreement (subdivision or carrier) first.
std::vector<std::pair<std::string, FamilyDiff::Subdivision>> Ranked(
    const FamilyDiff& diff) {
  std::vector<std::pair<std::string, FamilyDiff::Subdivision>> rows(
      diff.by_subdivision.begin(), diff.by_subdivision.end());
  auto disagreement = [](const FamilyDiff::Subdivision& s) {
    return s.subdivision.disagree + s.carrier.disagree;
  };
  std::stable_sort(rows.begin(), rows.end(), [&](const auto& x, const auto& y) {
    return disagreement(x.second) != disagreement(y.second)
               ? disagreement(x.second) > disagreement(y.second)
               : x.second.size > y.second.size;
  });
  return rows;
}

std::string FactsText(const DiffFacts& f) {
  std::string out;
  for (const std::string* field : {&f.country, &f.subdivision, &f.carrier}) {
    if (field->empty()) continue;
    if (!out.empty()) out += ' ';
    out += *field;
  }
  return out.empty() ? "-" : out;
}

std::string RangeText(const DiffExample& e) {
  return e.prefix_length >= 0 ? e.first + "/" + std::to_string(e.prefix_length)
                              : e.first + "-" + e.last;
}

// Tenths only where they are worth reading.
std::string Number(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), value < 1000 ? "%.1f" : "%.0f", value);
  return text;
}

// agree / (agree + disagree): of the space both know, the share they agree
// on.
std::string AgreeShare(const FieldCounts& c) {
  const double known = c.agree + c.disagree;
  return known > 0 ? Number(100 * c.agree / known) + "%" : "-";
}

// A's carriers (rows) against B's (columns): set names as they sort, then
// "other", then "-" (not known).
void PrintCarriers(
    const std::map<std::pair<std::string, std::string>, double>& carriers) {
  auto rank = [](const std::string& c) {
    return std::pair{c.empty() ? 2 : c == "other" ? 1 : 0, c};
  };
  std::vector<std::string> a_labels;
  std::vector<std::string> b_labels;
  for (const auto& [key, size] : carriers) {
    a_labels.push_back(key.first);
    b_labels.push_back(key.second);
  }
  for (auto* labels : {&a_labels, &b_labels}) {
    std::sort(labels->begin(), labels->end(),
              [&](const std::string& x, const std::string& y) {
                return rank(x) < rank(y);
              });
    labels->erase(std::unique(labels->begin(), labels->end()), labels->end());
  }
  std::printf("  by carrier (rows: A's, columns: B's)\n  %-12s", "");
  for (const std::string& b : b_labels) {
    std::printf(" %10s", b.empty() ? "-" : b.c_str());
  }
  std::printf("\n");
  for (const std::string& a : a_labels) {
    std::printf("  %-12s", a.empty() ? "-" : a.c_str());
    for (const std::string& b : b_labels) {
      const auto it = carriers.find({a, b});
      std::printf(" %10s",
                  it == carriers.end() ? "" : Number(it->second).c_str());
    }
    std::printf("\n");
  }
}

void PrintFamily(const char* family, const char* unit, const FamilyDiff& d,
                 size_t top) {
  std::printf("\n%s, in %s\n", family, unit);
  std::printf("  said by both %s, only by A %s, only by B %s\n",
              Number(d.both).c_str(), Number(d.only_a).c_str(),
              Number(d.only_b).c_str());
  std::printf("  %-12s %12s %12s %12s %12s %8s\n", "", "agree", "disagree",
              "only A", "only B", "agree");
  for (const auto& [name, c] : {std::pair{"country", &d.country},
                                std::pair{"subdivision", &d.subdivision},
                                std::pair{"carrier", &d.carrier}}) {
    std::printf("  %-12s %12s %12s %12s %12s %8s\n", name,
                Number(c->agree).c_str(), Number(c->disagree).c_str(),
                Number(c->only_a).c_str(), Number(c->only_b).c_str(),
                AgreeShare(*c).c_str());
  }
  const auto rows = Ranked(d);
  if (!rows.empty()) {
    std::printf(
        "  by A's subdivision (%zu of %zu, most disagreement first)\n"
        "  %-12s %10s  %-32s  %s\n"
        "  %-12s %10s  %10s %10s %10s  %10s %10s\n",
        std::min(top, rows.size()), rows.size(), "", "",
        "subdivision:", "carrier:", "", "A says", "agree", "disagree", "only A",
        "agree", "disagree");
    for (size_t i = 0; i < rows.size() && i < top; ++i) {
      const auto& [name, row] = rows[i];
      std::printf("  %-12s %10s  %10s %10s %10s  %10s %10s\n", name.c_str(),
                  Number(row.size).c_str(),
                  Number(row.subdivision.agree).c_str(),
                  Number(row.subdivision.disagree).c_str(),
                  Number(row.subdivision.only_a).c_str(),
                  Number(row.carrier.agree).c_str(),
                  Number(row.carrier.disagree).c_str());
    }
  }
  if (!d.by_carrier.empty()) PrintCarriers(d.by_carrier);
  if (!d.largest.empty()) {
    std::printf("  largest disagreements\n");
    for (const DiffExample& e : d.largest) {
      std::printf("  %-40s %10s  A: %s  B: %s\n", RangeText(e).c_str(),
                  Number(e.size).c_str(), FactsText(e.a).c_str(),
                  FactsText(e.b).c_str());
    }
  }
}

Json CountsJson(const FieldCounts& c) {
  return {{"agree", c.agree},
          {"disagree", c.disagree},
          {"onlyA", c.only_a},
          {"onlyB", c.only_b}};
}

Json FactsJson(const DiffFacts& f) {
  Json out = Json::object();
  if (!f.country.empty()) out["country"] = f.country;
  if (!f.subdivision.empty()) out["subdivision"] = f.subdivision;
  if (!f.carrier.empty()) out["carrier"] = f.carrier;
  return out;
}

Json FamilyJson(const char* unit, const FamilyDiff& d) {
  Json subdivisions = Json::array();
  for (const auto& [name, row] : Ranked(d)) {
    subdivisions.push_back({{"subdivision", name},
                            {"size", row.size},
                            {"subdivisionCounts", CountsJson(row.subdivision)},
                            {"carrierCounts", CountsJson(row.carrier)}});
  }
  Json carriers = Json::array();
  for (const auto& [key, size] : d.by_carrier) {
    carriers.push_back({{"a", key.first}, {"b", key.second}, {"size", size}});
  }
  Json largest = Json::array();
  for (const DiffExample& e : d.largest) {
    Json row = {{"first", e.first}, {"last", e.last}};
    if (e.prefix_length >= 0) row["prefixLength"] = e.prefix_length;
    row["size"] = e.size;
    row["a"] = FactsJson(e.a);
    row["b"] = FactsJson(e.b);
    largest.push_back(std::move(row));
  }
  return {{"unit", unit},
          {"both", d.both},
          {"onlyA", d.only_a},
          {"onlyB", d.only_b},
          {"country", CountsJson(d.country)},
          {"subdivision", CountsJson(d.subdivision)},
          {"carrier", CountsJson(d.carrier)},
          {"bySubdivision", std::move(subdivisions)},
          {"byCarrier", std::move(carriers)},
          {"largest", std::move(largest)}};
}

int Usage(const std::string& problem) {
  if (!problem.empty()) std::cerr << "geodb diff: " << problem << "\n";
  std::cerr << "usage:\n" << kGeodbUsage;
  return 2;
}

}  // namespace

DiffReport DiffSources(const DiffSide& a, const DiffSide& b,
                       const DiffOptions& options) {
  return {DiffFamily(a, a.v4, b, b.v4, options),
          DiffFamily(a, a.v6, b, b.v6, options)};
}

DiffSide SideOf(const dns::GeoResolver& resolver,
                const std::vector<SnapshotIspSet>& sets) {
  RegionMatch every_set;
  for (const SnapshotIspSet& set : sets) every_set.isps.push_back(set.name);
  const dns::CompiledGeo& compiled = *resolver.compiled();
  DiffSide side;
  std::map<DiffFacts, uint32_t> ids{{DiffFacts{}, 0}};
  std::vector<uint32_t> value_ids(compiled.value_count());
  for (size_t v = 0; v < value_ids.size(); ++v) {
    GeoInfo geo;
    compiled.FillValue(static_cast<uint32_t>(v), geo);
    DiffFacts facts{.country = std::string(geo.country),
                    .subdivision = std::string(geo.subdivision)};
    if (const auto match = MatchIsp(every_set, sets, geo)) {
      facts.carrier = match->set->name;
    } else if (!geo.isp.empty() || geo.asn != 0) {
      facts.carrier = "other";
    }
    const auto [it, added] =
        ids.try_emplace(facts, static_cast<uint32_t>(side.values.size()));
    if (added) side.values.push_back(facts);
    value_ids[v] = it->second;
  }
  auto project = [&](const auto& table, auto& list) {
    list.clear();
    table.ForEach([&](auto start, uint32_t value) {
      dns::AppendRange(
          list, start,
          value == dns::FamilyTables::kDeeper ? 0 : value_ids[value]);
    });
  };
  project(compiled.tables().v4, side.v4);
  project(compiled.tables().v6, side.v6);
  return side;
}

int GeodbDiffCommand(const Args& args) {
  std::array<Args, 2> sides;
  for (const auto& [flag, values] : args.flags) {
    for (int s = 0; s < 2; ++s) {
      const std::string prefix = s == 0 ? "--a-" : "--b-";
      if (flag.starts_with(prefix)) {
        sides[s].flags["--" + flag.substr(prefix.size())] = values;
      }
    }
  }
  if (args.positional.size() != 1) return Usage("");
  if (HasGeoFiles(args)) {
    return Usage(
        "name each source's files with --a- or --b- in front (--a-ipdb FILE)");
  }
  if (!HasGeoFiles(sides[0]) || !HasGeoFiles(sides[1])) {
    return Usage("both sources need a file (--a-... and --b-...)");
  }
  DiffOptions options;
  if (args.Has("--country")) {
    options.country = args.Get("--country");
    if (options.country.size() != 2 ||
        !std::all_of(options.country.begin(), options.country.end(),
                     [](char c) { return c >= 'A' && c <= 'Z'; })) {
      return Usage("--country: a two-letter ISO 3166-1 code like CN");
    }
  }
  size_t top = 20;
  if (args.Has("--top")) {
    const std::string text = args.Get("--top");
    const auto [end, ec] =
        std::from_chars(text.data(), text.data() + text.size(), top);
    if (ec != std::errc() || end != text.data() + text.size()) {
      return Usage("--top: a number of rows");
    }
  }
  const std::vector<SnapshotIspSet> sets = ResolveIspSets({});
  std::array<DiffSide, 2> loaded;
  std::array<Json, 2> files;
  for (int s = 0; s < 2; ++s) {
    std::string error;
    const auto resolver = GeoResolverFromFlags(
        sides[s], dns::GeoResolver::Mode::kCompiled, &error);
    if (!resolver) {
      std::cerr << (s == 0 ? "A: " : "B: ") << error << "\n";
      return 1;
    }
    files[s] = Json::array();
    for (const auto& source : resolver->sources().sources) {
      files[s].push_back({{"kind", dns::GeoSourceKindName(source->kind())},
                          {"file", source->path()}});
    }
    loaded[s] = SideOf(*resolver, sets);
  }
  const DiffReport report = DiffSources(loaded[0], loaded[1], options);
  if (args.Has("--json")) {
    Json out = {{"a", files[0]}, {"b", files[1]}};
    if (!options.country.empty()) out["country"] = options.country;
    out["ipv4"] = FamilyJson("/24", report.v4);
    out["ipv6"] = FamilyJson("/48", report.v6);
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  for (int s = 0; s < 2; ++s) {
    std::printf("%s:", s == 0 ? "A" : "B");
    for (const Json& file : files[s]) {
      std::printf(" %s %s", file["kind"].get<std::string>().c_str(),
                  std::filesystem::path(file["file"].get<std::string>())
                      .filename()
                      .c_str());
    }
    std::printf("\n");
  }
  if (!options.country.empty()) {
    std::printf("only where either says %s\n", options.country.c_str());
  }
  PrintFamily("IPv4", "/24s", report.v4, top);
  PrintFamily("IPv6", "/48s", report.v6, top);
  return 0;
}

}  // namespace ax
