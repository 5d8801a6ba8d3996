// CompiledGeo: walks each source per family into a range list of what it
// says, merges the lists field group by field group in precedence order
// (geo_precedence.h), and freezes the result into range tables.
#include "geo/compiled_geo.h"

namespace ax::dns {
namespace {

// Range values before the freeze: no source says anything here; kDeeper
// marks an IPv6 /64 a source splits further (answered from the sources at
// query time).
constexpr uint32_t kNoRecord = UINT32_MAX;
constexpr uint32_t kDeeper = FamilyTables::kDeeper;

// Appends `text` and a separator no database value holds.
void AppendKey(std::string& key, std::string_view text) {
  key.append(text).push_back('\0');
}

std::string FactsKey(const GeoFacts& facts) {
  std::string key;
  AppendKey(key, facts.country);
  AppendKey(key, facts.subdivision);
  AppendKey(key, facts.city);
  AppendKey(key, facts.isp);
  key.append(reinterpret_cast<const char*>(&facts.asn), sizeof facts.asn);
  return key;
}

}  // namespace

class CompiledGeo::Builder {
 public:
  Builder(const RankedSources& sources, CompiledGeo& out, std::string* error)
      : sources_(sources), out_(out), error_(error) {}

  template <typename Key>
  bool Build(IpFamily family, RangeList<Key>& out) {
    RangeList<Key> combined{{0, kNoRecord}};
    for (size_t s = 0; s < sources_.sources.size(); ++s) {
      const GeoSource& source = *sources_.sources[s];
      if (!source.Serves(family) || RanksNothing(sources_.ranks[s])) continue;
      RangeList<Key> ranges;
      if (!Walk(s, family, ranges)) return false;
      std::unordered_map<uint64_t, uint32_t> merged;
      combined =
          CombineRanges(combined, ranges, [&](uint32_t held, uint32_t next) {
            if (held == kDeeper || next == kDeeper) return kDeeper;
            if (next == kNoRecord) return held;
            if (held == kNoRecord) return next;
            auto [it, added] = merged.try_emplace(uint64_t{held} << 32 | next);
            if (added) {
              RankedFacts facts = partials_[held];
              facts.Merge(partials_[next]);
              it->second = InternPartial(facts);
            }
            return it->second;
          });
    }
    // The ranks only served the merge: neighbours that say the same merge
    // now.
    std::vector<uint32_t> frozen(partials_.size(), kNoRecord);
    out.clear();
    for (const RangeStart<Key>& r : combined) {
      uint32_t value = r.value;
      if (value == kNoRecord) {
        value = Intern({});
      } else if (value != kDeeper) {
        if (frozen[value] == kNoRecord) {
          frozen[value] = Intern(partials_[value].facts);
        }
        value = frozen[value];
      }
      AppendRange(out, r.start, value);
    }
    return true;
  }

 private:
  // One source's partition of `family`, its values what the source says
  // about the groups it ranks in.
  template <typename Key>
  bool Walk(size_t s, IpFamily family, RangeList<Key>& out) {
    // Records are shared by many networks: decode each once.
    std::unordered_map<uint64_t, uint32_t> decoded;
    return sources_.sources[s]->Walk(
        family,
        [&](const GeoSourceRange& range, const GeoSource::Decode& decode) {
          uint32_t value = kNoRecord;
          if (range.state == GeoSourceRange::State::kDeeper) {
            value = kDeeper;
          } else if (range.state == GeoSourceRange::State::kRecord) {
            auto [it, added] = decoded.try_emplace(range.record);
            if (added) {
              GeoFacts facts;
              if (!decode(facts)) return false;
              RankedFacts ranked;
              sources_.MergeInto(ranked, s, facts);
              it->second = ranked.empty() ? kNoRecord : InternPartial(ranked);
            }
            value = it->second;
          }
          AppendRange(out, static_cast<Key>(range.key), value);
          return true;
        },
        error_);
  }

  // Partial values view the sources' files, which outlive the build.
  uint32_t InternPartial(const RankedFacts& facts) {
    std::string key = FactsKey(facts.facts);
    key.append(reinterpret_cast<const char*>(facts.ranks.data()),
               facts.ranks.size());
    auto [it, added] = partial_ids_.try_emplace(std::move(key));
    if (added) {
      it->second = static_cast<uint32_t>(partials_.size());
      partials_.push_back(facts);
    }
    return it->second;
  }

  uint32_t Intern(const GeoFacts& v) {
    auto [it, added] = value_ids_.try_emplace(FactsKey(v));
    if (added) {
      it->second = static_cast<uint32_t>(out_.values_.size());
      out_.values_.push_back({.country = Own(v.country),
                              .subdivision = Own(v.subdivision),
                              .city = Own(v.city),
                              .asn = v.asn,
                              .isp = Own(v.isp)});
    }
    return it->second;
  }

  std::string_view Own(std::string_view text) {
    return *out_.strings_.emplace(text).first;
  }

  const RankedSources& sources_;
  CompiledGeo& out_;
  std::string* error_;
  std::vector<RankedFacts> partials_;
  std::unordered_map<std::string, uint32_t> partial_ids_;
  std::unordered_map<std::string, uint32_t> value_ids_;
};

std::unique_ptr<const CompiledGeo> CompiledGeo::Compile(
    const RankedSources& sources, std::string* error) {
  std::unique_ptr<CompiledGeo> compiled(new CompiledGeo());
  Builder builder(sources, *compiled, error);
  RangeList<uint32_t> v4;
  RangeList<uint64_t> v6;
  if (!builder.Build(IpFamily::kV4, v4) || !builder.Build(IpFamily::kV6, v6)) {
    return nullptr;
  }
  compiled->tables_.v4 = RangeTable<uint32_t>(v4);
  compiled->tables_.v6 = RangeTable<uint64_t>(v6);
  compiled->values_.shrink_to_fit();
  return compiled;
}

bool CompiledGeo::Find(const IpAddress& ip, GeoInfo& geo) const {
  const FamilyTables::Hit hit = tables_.Find(ip);
  if (hit.value == kDeeper) return false;
  FillValue(hit.value, geo);
  geo.geo_prefix_length = hit.prefix_length;
  return true;
}

void CompiledGeo::FillValue(uint32_t value, GeoInfo& geo) const {
  const Value& v = values_[value];
  geo.country = v.country;
  geo.subdivision = v.subdivision;
  geo.city = v.city;
  geo.asn = v.asn;
  geo.isp = v.isp;
}

CompiledGeo::Stats CompiledGeo::stats() const {
  Stats s{.v4_ranges = tables_.v4.size(),
          .v6_ranges = tables_.v6.size(),
          .values = values_.size()};
  s.bytes = tables_.v4.MemoryBytes() + tables_.v6.MemoryBytes() +
            values_.capacity() * sizeof(Value);
  for (const std::string& text : strings_) s.bytes += text.capacity() + 32;
  return s;
}

}  // namespace ax::dns
