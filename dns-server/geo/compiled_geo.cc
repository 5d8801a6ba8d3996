// CompiledGeo: walks each source per family into a range list of what it
// says, merges the lists field group by field group in precedence order
// (geo_precedence.h), and freezes the result into range tables.
#include "geo/compiled_geo.h"

#include <string_view>
#include <unordered_map>

#include "geo/id_map.h"

namespace ax::dns {
namespace {

// Range values before the freeze: no source says anything here; kDeeper
// marks an IPv6 /64 a source splits further (answered from the sources at
// query time).
constexpr uint32_t kNoRecord = UINT32_MAX;
constexpr uint32_t kDeeper = FamilyTables::kDeeper;

size_t Mix(size_t seed, size_t value) {
  return seed ^ (value + 0x9E3779B97F4A7C15ull + (seed << 6) + (seed >> 2));
}

}  // namespace

struct CompiledGeo::ValueHash {
  size_t operator()(const Value& v) const {
    size_t h = v.asn;
    for (uint32_t text : {v.country, v.subdivision, v.city, v.isp}) {
      h = Mix(h, text);
    }
    return h;
  }
};

class CompiledGeo::Builder {
 public:
  Builder(const RankedSources& sources, CompiledGeo& out, std::string* error)
      : sources_(sources), out_(out), error_(error) {
    Text("");
  }

  template <typename Key>
  bool Build(IpFamily family, RangeList<Key>& out) {
    RangeList<Key> combined{{0, kNoRecord}};
    for (size_t s = 0; s < sources_.sources.size(); ++s) {
      const GeoSource& source = *sources_.sources[s];
      if (!source.Serves(family) || RanksNothing(sources_.ranks[s])) continue;
      RangeList<Key> ranges;
      if (!Walk(s, family, ranges)) return false;
      IdMap merged;
      combined =
          CombineRanges(combined, ranges, [&](uint32_t held, uint32_t next) {
            if (held == kDeeper || next == kDeeper) return kDeeper;
            if (next == kNoRecord) return held;
            if (held == kNoRecord) return next;
            auto [id, added] = merged.FindOrAdd(uint64_t{held} << 32 | next);
            if (added) {
              RankedFacts facts = partials_[held];
              facts.Merge(partials_[next]);
              id = InternPartial(facts);
            }
            return id;
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
  // Partial values keyed by what they hold, without building a key string.
  struct PartialHash {
    size_t operator()(const RankedFacts& p) const {
      const std::hash<std::string_view> text;
      size_t h = Mix(text(p.facts.country), text(p.facts.subdivision));
      h = Mix(Mix(h, text(p.facts.city)), text(p.facts.isp));
      h = Mix(h, p.facts.asn);
      for (uint8_t rank : p.ranks) h = Mix(h, rank);
      return h;
    }
  };
  struct PartialEqual {
    bool operator()(const RankedFacts& a, const RankedFacts& b) const {
      return a.facts.country == b.facts.country &&
             a.facts.subdivision == b.facts.subdivision &&
             a.facts.city == b.facts.city && a.facts.asn == b.facts.asn &&
             a.facts.isp == b.facts.isp && a.ranks == b.ranks;
    }
  };

  // One source's partition of `family`, its values what the source says
  // about the groups it ranks in.
  template <typename Key>
  bool Walk(size_t s, IpFamily family, RangeList<Key>& out) {
    // Records are shared by many networks: decode each once.
    IdMap decoded;
    return sources_.sources[s]->Walk(
        family,
        [&](const GeoSourceRange& range, const GeoSource::Decode& decode) {
          uint32_t value = kNoRecord;
          if (range.state == GeoSourceRange::State::kDeeper) {
            value = kDeeper;
          } else if (range.state == GeoSourceRange::State::kRecord) {
            auto [id, added] = decoded.FindOrAdd(range.record);
            if (added) {
              GeoFacts facts;
              if (!decode(facts)) return false;
              RankedFacts ranked;
              sources_.MergeInto(ranked, s, facts);
              OwnTexts(ranked.facts);
              id = ranked.empty() ? kNoRecord : InternPartial(ranked);
            }
            value = id;
          }
          AppendRange(out, static_cast<Key>(range.key), value);
          return true;
        },
        error_);
  }

  // Points `facts`' views at this object's copies: the walk drops the file's
  // pages when it ends, and reading a view into them afterwards (merging,
  // freezing) would fault them back in for good.
  void OwnTexts(GeoFacts& facts) {
    for (std::string_view* text :
         {&facts.country, &facts.subdivision, &facts.city, &facts.isp}) {
      *text = out_.texts_[Text(*text)];
    }
  }

  uint32_t InternPartial(const RankedFacts& facts) {
    auto [it, added] = partial_ids_.try_emplace(
        facts, static_cast<uint32_t>(partials_.size()));
    if (added) partials_.push_back(facts);
    return it->second;
  }

  uint32_t Intern(const GeoFacts& facts) {
    const Value v{.country = Text(facts.country),
                  .subdivision = Text(facts.subdivision),
                  .city = Text(facts.city),
                  .isp = Text(facts.isp),
                  .asn = facts.asn};
    auto [it, added] =
        value_ids_.try_emplace(v, static_cast<uint32_t>(out_.values_.size()));
    if (added) out_.values_.push_back(v);
    return it->second;
  }

  uint32_t Text(std::string_view text) {
    if (auto it = text_ids_.find(text); it != text_ids_.end()) {
      return it->second;
    }
    // The key views the copy this object keeps, not the source's file.
    const uint32_t id = static_cast<uint32_t>(out_.texts_.size());
    text_ids_.emplace(out_.texts_.emplace_back(text), id);
    return id;
  }

  const RankedSources& sources_;
  CompiledGeo& out_;
  std::string* error_;
  std::vector<RankedFacts> partials_;
  std::unordered_map<RankedFacts, uint32_t, PartialHash, PartialEqual>
      partial_ids_;
  std::unordered_map<std::string_view, uint32_t> text_ids_;
  std::unordered_map<Value, uint32_t, ValueHash> value_ids_;
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
  geo.country = texts_[v.country];
  geo.subdivision = texts_[v.subdivision];
  geo.city = texts_[v.city];
  geo.asn = v.asn;
  geo.isp = texts_[v.isp];
}

CompiledGeo::Stats CompiledGeo::stats() const {
  Stats s{.v4_ranges = tables_.v4.size(),
          .v6_ranges = tables_.v6.size(),
          .values = values_.size()};
  s.bytes = tables_.v4.MemoryBytes() + tables_.v6.MemoryBytes() +
            values_.capacity() * sizeof(Value);
  for (const std::string& text : texts_) s.bytes += text.capacity() + 32;
  return s;
}

}  // namespace ax::dns
