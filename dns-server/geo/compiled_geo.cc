// CompiledGeo: walks each database per family into a range list of decoded
// values, overlays the databases in lookup order, joins geo with ASN, and
// freezes the result into range tables.
#include "geo/compiled_geo.h"

#include <cstring>
#include <functional>

#include "geo/geo_resolver.h"

namespace ax::dns {
namespace {

// Range values before the final join: no database record here; kDeeper
// marks an IPv6 /64 the tree splits further (answered from the databases at
// query time).
constexpr uint32_t kNoRecord = UINT32_MAX;
constexpr uint32_t kDeeper = FamilyTables::kDeeper;

bool Usable(const MmdbFile& db, IpFamily family) {
  return family == IpFamily::kV4 || db.ip_version() == 6;
}

// The first database with a record wins (GeoResolver's lookup order).
uint32_t Overlay(uint32_t first, uint32_t second) {
  return first == kNoRecord ? second : first;
}

}  // namespace

class CompiledGeo::Builder {
 public:
  Builder(const GeoDatabases& dbs, const GeoFieldPaths& paths, CompiledGeo& out,
          std::string* error)
      : dbs_(dbs),
        out_(out),
        error_(error),
        country_(ToCFieldPath(paths.country)),
        subdivision_(ToCFieldPath(paths.subdivision)),
        asn_(ToCFieldPath(paths.asn)) {}

  template <typename Key>
  bool Build(IpFamily family, RangeList<Key>& out) {
    RangeList<Key> geo;
    auto decode_geo = [this](const MmdbFile& db, const MmdbRecord& record,
                             uint32_t& value) {
      return DecodeGeo(db, record, value);
    };
    if (!Collect(dbs_.geo, family, decode_geo, geo)) return false;
    if (dbs_.asn.empty()) {
      out.clear();
      for (const RangeStart<Key>& r : geo) {
        AppendRange(out, r.start, r.value == kNoRecord ? Intern({}) : r.value);
      }
      return true;
    }
    RangeList<Key> asn;
    auto decode_asn = [this](const MmdbFile& db, const MmdbRecord& record,
                             uint32_t& value) {
      return DecodeAsn(db, record, value);
    };
    if (!Collect(dbs_.asn, family, decode_asn, asn)) return false;
    std::unordered_map<uint64_t, uint32_t> joined;
    out = CombineRanges(geo, asn, [&](uint32_t g, uint32_t a) {
      if (g == kDeeper || a == kDeeper) return kDeeper;
      auto [it, added] = joined.try_emplace(uint64_t{g} << 32 | a);
      if (added) {
        Value value = g == kNoRecord ? Value{} : out_.values_[g];
        value.asn = a == kNoRecord ? 0 : a;
        it->second = Intern(value);
      }
      return it->second;
    });
    return true;
  }

 private:
  using Decode =
      std::function<bool(const MmdbFile&, const MmdbRecord&, uint32_t&)>;

  // One partition for `family` from `dbs` in lookup order.
  template <typename Key>
  bool Collect(const std::vector<std::shared_ptr<const MmdbFile>>& dbs,
               IpFamily family, const Decode& decode, RangeList<Key>& out) {
    out = {{0, kNoRecord}};
    for (const std::shared_ptr<const MmdbFile>& db : dbs) {
      if (!Usable(*db, family)) continue;
      RangeList<Key> ranges;
      if (!Walk(*db, family, decode, ranges)) return false;
      out = CombineRanges(out, ranges, Overlay);
    }
    return true;
  }

  template <typename Key>
  bool Walk(const MmdbFile& db, IpFamily family, const Decode& decode,
            RangeList<Key>& out) {
    // Records are shared by many networks: decode each once.
    std::unordered_map<uint32_t, uint32_t> decoded;
    // Walking reads every page of the file; queries touch few of them again
    // (IPv6 /64s split further, locations), so drop them from our memory.
    struct Release {
      const MmdbFile& db;
      ~Release() { db.ReleasePages(); }
    } release{db};
    return db.ForEachNetwork(
        family,
        [&](const MmdbNetwork& network) {
          uint32_t value = kNoRecord;
          if (network.deeper) {
            value = kDeeper;
          } else if (network.record.found) {
            auto [it, added] = decoded.try_emplace(network.record.entry.offset);
            if (added && !decode(db, network.record, it->second)) {
              return false;
            }
            value = it->second;
          }
          AppendRange(out, static_cast<Key>(network.key), value);
          return true;
        },
        error_);
  }

  bool DecodeGeo(const MmdbFile& db, const MmdbRecord& record,
                 uint32_t& value) {
    Value v;
    std::string_view subdivision;
    if (!Read(db, record, db.GetString(record, country_.data(), v.country)) ||
        !Read(db, record,
              db.GetString(record, subdivision_.data(), subdivision))) {
      return false;
    }
    if (!subdivision.empty()) {
      v.subdivision = dbs_.subdivisions->ToIso(v.country, subdivision);
    }
    // Without ASN databases the ASN comes from the geo record itself.
    if (dbs_.asn.empty() &&
        !Read(db, record, db.GetUint32(record, asn_.data(), v.asn))) {
      return false;
    }
    value = Intern(v);
    return true;
  }

  bool DecodeAsn(const MmdbFile& db, const MmdbRecord& record,
                 uint32_t& value) {
    uint32_t asn = 0;
    if (!Read(db, record, db.GetUint32(record, asn_.data(), asn))) {
      return false;
    }
    // The two top values are reserved ASNs (RFC 7300) and our markers.
    value = asn >= kDeeper ? 0 : asn;
    return true;
  }

  bool Read(const MmdbFile& db, const MmdbRecord& record, MmdbField field) {
    if (field != MmdbField::kCorrupt) return true;
    if (error_ != nullptr) {
      *error_ = "geo database " + db.path() + ": record at data offset " +
                std::to_string(record.entry.offset) + " does not decode";
    }
    return false;
  }

  uint32_t Intern(const Value& v) {
    std::string key;
    key.reserve(v.country.size() + v.subdivision.size() + 6);
    key.append(v.country).push_back('\0');
    key.append(v.subdivision).push_back('\0');
    key.append(reinterpret_cast<const char*>(&v.asn), sizeof v.asn);
    auto [it, added] = interned_.try_emplace(std::move(key));
    if (added) {
      it->second = static_cast<uint32_t>(out_.values_.size());
      out_.values_.push_back({Own(v.country), Own(v.subdivision), v.asn});
    }
    return it->second;
  }

  std::string_view Own(std::string_view text) {
    return *out_.strings_.emplace(text).first;
  }

  const GeoDatabases& dbs_;
  CompiledGeo& out_;
  std::string* error_;
  const CFieldPath country_, subdivision_, asn_;
  std::unordered_map<std::string, uint32_t> interned_;
};

std::unique_ptr<const CompiledGeo> CompiledGeo::Compile(
    const GeoDatabases& dbs, const GeoFieldPaths& paths, std::string* error) {
  std::unique_ptr<CompiledGeo> compiled(new CompiledGeo());
  Builder builder(dbs, paths, *compiled, error);
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
  geo.asn = v.asn;
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
