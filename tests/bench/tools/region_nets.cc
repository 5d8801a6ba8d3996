// ax_region_nets: which Region's geo criteria every address matches, under
// the Regions of a manifest directory and the geo + ASN databases, printed as
// "PREFIX REGION" lines (REGION "-" where no Region's geo criteria match, so
// a catch-all or nothing applies). The peer benchmark turns this into the nets
// map of gdnsd's geoip plugin, so gdnsd classifies every client against the
// same whole-Internet map ax-dns compiles (GeoRegionMap), not a short list.
// Unlike the other tools here it links the project's libraries: the map is
// ours by definition.
//
//   ax_region_nets --manifests DIR [--geo-db FILE... [--geo-schema S]]
//                  [--asn-db FILE...] [--ipdb FILE...] [--ip2region FILE...]
#include <bit>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "ax/classify.h"
#include "axctl/world_source.h"
#include "geo/geo_store.h"

namespace {

struct Options {
  std::string manifests;
  ax::dns::GeoStoreConfig geo;
};

bool ParseArgs(int argc, char** argv, Options& options) {
  std::string schema = "geoip2";
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const std::string value = argv[i + 1];
    if (flag == "--manifests") {
      options.manifests = value;
    } else if (flag == "--geo-db") {
      options.geo.geo_files.push_back(value);
    } else if (flag == "--asn-db") {
      options.geo.asn_files.push_back(value);
    } else if (flag == "--ipdb") {
      options.geo.ipdb_files.push_back(value);
    } else if (flag == "--ip2region") {
      options.geo.ip2region_files.push_back(value);
    } else if (flag == "--geo-schema") {
      schema = value;
    } else {
      std::fprintf(stderr, "ax_region_nets: unknown flag %s\n", flag.c_str());
      return false;
    }
  }
  const auto fields = ax::dns::GeoFieldPathsForSchema(schema);
  const bool no_files = options.geo.geo_files.empty() &&
                        options.geo.ipdb_files.empty() &&
                        options.geo.ip2region_files.empty();
  if (!fields || options.manifests.empty() || no_files || argc % 2 == 0) {
    std::fprintf(stderr,
                 "usage: ax_region_nets --manifests DIR (--geo-db FILE... "
                 "[--geo-schema geoip2|dbip] [--asn-db FILE...] | --ipdb "
                 "FILE... | --ip2region FILE...)\n");
    return false;
  }
  options.geo.fields = *fields;
  return true;
}

// Prints the keys [first, last] of one family (a key holds the top bits of an
// address of `family_bits`) as the fewest aligned prefixes.
template <typename Key>
void PrintRange(Key first, Key last, int family_bits,
                const std::string& region) {
  constexpr int bits = std::numeric_limits<Key>::digits;
  while (true) {
    // The largest aligned block starting at `first` that ends by `last`.
    int size_bits = first == 0 ? bits : std::countr_zero(first);
    while (size_bits > 0 &&
           (size_bits >= bits ||
            Key(first + ((Key{1} << size_bits) - 1)) > last ||
            Key(first + ((Key{1} << size_bits) - 1)) < first)) {
      --size_bits;
    }
    ax::IpAddress ip;
    ip.family = family_bits == 32 ? ax::IpFamily::kV4 : ax::IpFamily::kV6;
    for (int i = 0; i < bits / 8; ++i) {
      ip.bytes[i] = static_cast<uint8_t>(first >> (bits - 8 - 8 * i));
    }
    std::printf("%s/%d %s\n", ax::FormatIp(ip).c_str(), bits - size_bits,
                region.c_str());
    const Key end = first + ((Key{1} << size_bits) - 1);
    if (end >= last) return;
    first = end + 1;
  }
}

template <typename Table>
void PrintTable(const Table& table, int family_bits,
                const std::vector<ax::SnapshotRegion>& regions) {
  using Key = typename Table::KeyType;
  bool have = false;
  Key start = 0;
  uint32_t value = 0;
  auto flush = [&](Key last) {
    if (!have || value == ax::dns::FamilyTables::kDeeper) return;
    PrintRange<Key>(start, last, family_bits,
                    value == ax::kNoIndex ? "-" : regions[value].name);
  };
  table.ForEach([&](Key next_start, uint32_t next_value) {
    flush(Key(next_start - 1));
    have = true;
    start = next_start;
    value = next_value;
  });
  flush(~Key{0});
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  if (!ParseArgs(argc, argv, options)) return 2;
  const auto snapshot = ax::SnapshotFromManifests({options.manifests});
  if (!snapshot) return 1;
  ax::dns::GeoStore store(options.geo);
  if (store.ReloadIfChanged(ax::dns::GeoStore::Clock::now()) ==
      ax::dns::GeoStore::Reload::kFailed) {
    std::fprintf(stderr, "ax_region_nets: %s\n",
                 store.status().last_error.c_str());
    return 1;
  }
  const ax::dns::CompiledGeo* compiled = store.Current()->compiled();
  const ax::Classifier classifier(*snapshot);
  // The same projection GeoRegionMap::Build makes, keeping only the region.
  const ax::dns::FamilyTables regions =
      compiled->tables().Project(compiled->value_count(), [&](uint32_t value) {
        ax::GeoInfo info;
        compiled->FillValue(value, info);
        return classifier.MatchGeo(info).region;  // kNoIndex: none
      });
  PrintTable(regions.v4, 32, snapshot->regions);
  PrintTable(regions.v6, 128, snapshot->regions);
  return 0;
}
