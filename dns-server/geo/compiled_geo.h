// CompiledGeo: a set of geo sources (MMDB location and ASN files, ipdb,
// ip2region) compiled once, at load, into one range table per address family
// whose values are (country, subdivision, city, ASN, carrier) — gdnsd's
// approach. A query then costs one bucket index load and a short binary
// search instead of a tree walk and field decodes per source, and its ECS
// scope is the widest block with the same classification inputs rather than
// a database's (often much longer) network. Location is not compiled: it
// differs per coordinate and is read from the databases only when an answer
// needs it (GeoResolver::Lookup). Which source supplies which field is
// geo_precedence.h's rule; this file only precomputes it.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "ax/classify.h"
#include "ax/ip.h"
#include "geo/family_tables.h"
#include "geo/geo_precedence.h"

namespace ax::dns {

class CompiledGeo {
 public:
  struct Stats {
    size_t v4_ranges = 0;
    size_t v6_ranges = 0;
    size_t values = 0;  // distinct (country, subdivision, city, ASN, ISP)
    size_t bytes = 0;   // tables and values, approximately
  };

  // Walks every source once per family it serves. Null with `error`
  // (naming the file) when a search tree or a record is corrupt.
  static std::unique_ptr<const CompiledGeo> Compile(
      const RankedSources& sources, std::string* error);

  // Fills country, subdivision, city, asn, isp and geo_prefix_length of
  // `geo`. False
  // when the address lies in an IPv6 /64 the databases split further: the
  // caller must then read the databases. Never allocates.
  bool Find(const IpAddress& ip, GeoInfo& geo) const;

  Stats stats() const;

  // For deriving tables (FamilyTables::Project): values are indices below
  // value_count(), or FamilyTables::kDeeper; FillValue copies one's fields.
  const FamilyTables& tables() const { return tables_; }
  size_t value_count() const { return values_.size(); }
  void FillValue(uint32_t value, GeoInfo& geo) const;

 private:
  // A GeoFacts with its texts as indices into texts_: 20 bytes instead of
  // 72, for the ~200 k values of the real databases.
  struct Value {
    uint32_t country = 0;
    uint32_t subdivision = 0;
    uint32_t city = 0;
    uint32_t isp = 0;
    uint32_t asn = 0;
    bool operator==(const Value&) const = default;
  };
  struct ValueHash;
  class Builder;

  CompiledGeo() = default;

  FamilyTables tables_;
  std::vector<Value> values_;
  // Each distinct text once, "" first; a deque so that views of its strings
  // stay valid while it grows.
  std::deque<std::string> texts_;
};

}  // namespace ax::dns
