// `axctl geodb diff`: how much of the address space two geo sources disagree
// on — country, subdivision (province) and carrier, the built-in ISP set a
// source's ISP name or ASN belongs to — so an operator sees how far to trust
// each. Each source is compiled (geo/compiled_geo.h) into range lists over
// what it says (SideOf); the lists are overlaid (CombineRanges) and counted
// (DiffSources, pure: range lists in, counts out). Opening the files is
// geo_flags.h's, ISP set matching the core's (isp_sets.h); nothing here
// reads a file format.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "ax/snapshot.h"
#include "axctl/args.h"
#include "geo/geo_resolver.h"
#include "geo/range_table.h"

namespace ax {

// What one source says about a range, as the diff compares it.
struct DiffFacts {
  std::string country;      // ISO 3166-1
  std::string subdivision;  // ISO 3166-2
  // The ISP set its carrier name or ASN belongs to; "other" when it names a
  // carrier or an ASN that no set holds.
  std::string carrier;

  bool operator==(const DiffFacts&) const = default;
  bool operator<(const DiffFacts& o) const {
    return std::tie(country, subdivision, carrier) <
           std::tie(o.country, o.subdivision, o.carrier);
  }
};

// One source: its distinct facts (values[0] says nothing) and, per family,
// the partition of the key space over them (IPv4 addresses; IPv6 by their
// upper 64 bits, as the compiled tables key them).
struct DiffSide {
  std::vector<DiffFacts> values{DiffFacts{}};
  dns::RangeList<uint32_t> v4{{0, 0}};
  dns::RangeList<uint64_t> v6{{0, 0}};
};

// Address space in /24s (IPv4) or /48s (IPv6) where a field is known to
// both sources and the same, known to both and different, or known to one.
struct FieldCounts {
  double agree = 0;
  double disagree = 0;
  double only_a = 0;
  double only_b = 0;
};

struct DiffExample {
  std::string first, last;  // the range's first and last address
  int prefix_length = -1;   // when the range is exactly one CIDR
  double size = 0;
  DiffFacts a, b;
};

struct FamilyDiff {
  // Where the sources say anything at all: both, only A, only B.
  double both = 0;
  double only_a = 0;
  double only_b = 0;
  FieldCounts country, subdivision, carrier;
  struct Subdivision {
    double size = 0;
    FieldCounts subdivision, carrier;
  };
  // By A's subdivision.
  std::map<std::string, Subdivision> by_subdivision;
  // By (A's carrier, B's carrier), "" unknown, where either knows one.
  std::map<std::pair<std::string, std::string>, double> by_carrier;
  // The largest ranges where a known field differs, largest first.
  std::vector<DiffExample> largest;
};

struct DiffOptions {
  // Only where either source says this country ("": everywhere).
  std::string country;
  size_t examples = 10;
};

struct DiffReport {
  FamilyDiff v4, v6;
};

DiffReport DiffSources(const DiffSide& a, const DiffSide& b,
                       const DiffOptions& options);

// What `resolver`'s compiled tables say, the carriers mapped to `sets` (IPv6
// /64s its sources split further count as saying nothing).
DiffSide SideOf(const dns::GeoResolver& resolver,
                const std::vector<SnapshotIspSet>& sets);

// Returns the exit code: 0 compared, 1 a source failed to load, 2 bad usage.
int GeodbDiffCommand(const Args& args);

}  // namespace ax
