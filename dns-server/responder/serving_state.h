// What the data plane serves from, built once per snapshot load and then
// immutable: the snapshot, its classifier, the zones (SOA/NS and the addresses
// of in-zone name servers) and a name index with every wire name pre-encoded.
// Readers hold one shared_ptr per query; a load builds a new ServingState off
// to the side and swaps it in. No packet handling here.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ax/classify.h"
#include "ax/ip.h"
#include "ax/snapshot.h"
#include "responder/geo_regions.h"

namespace ax::dns {

// One NS record of a zone (RFC 1035 §3.3.11). A name server inside its own
// zone needs addresses: they are served as its A/AAAA records and as glue (RFC
// 9471), or a resolver following the delegation could never reach it. A name
// server outside the zone takes none (its own zone serves them).
struct NameServer {
  std::string name;  // lower case, no trailing dot
  std::vector<IpAddress> addresses;
};

// Server-side zone settings (SOA/NS at the apex). Zones not configured
// explicitly are derived from the snapshot's domains with every field left
// empty; empty fields get defaults in ServingState::Make.
struct ZoneConfig {
  std::string name;  // lower case, no trailing dot
  // Empty: one name server, ns1.<zone>, without an address. Resolvers cannot
  // follow a delegation to it; list name servers with addresses for that.
  std::vector<NameServer> ns;
  std::string mname;  // default: first NS
  std::string rname;  // default: hostmaster.<zone>
  uint32_t refresh = 3600, retry = 600, expire = 604800;
  uint32_t minimum = 60;  // negative-caching TTL (RFC 2308 §4)
  uint32_t ttl = 3600;    // TTL of SOA and NS records and name server addresses
};

// A zone as answers need it. Names are wire format, lower case.
struct ServedZone {
  ZoneConfig config;
  std::string apex;
  std::vector<std::string> ns;  // NS targets (the default one when unlisted)
  std::string mname;
  std::string rname;
  uint32_t negative_ttl = 0;  // min(SOA TTL, MINIMUM) (RFC 2308 §5)
};

// Per snapshot domain (same index), what the query path would otherwise
// recompute.
struct ServedDomain {
  std::string cname;     // wire-format fallback CNAME target; empty: none
  std::string grpc_txt;  // TXT RDATA of _grpc_config.<fqdn>; empty: none
  std::string fqdn;      // wire format, lower case
  // With SRV services: the SRV target <node>.<fqdn> of each snapshot node, by
  // node index (wire format); empty without.
  std::vector<std::string> srv_targets;
  // Every region and the unclassified slot share one route: the answer does not
  // depend on where the client is.
  bool one_route = false;
  // ConsistentHash or GeoClosest: the pick depends on the client subnet itself.
  bool subnet_strategy = false;
  // GeoClosest: the pick needs the client's location.
  bool needs_location = false;
};

// What exists at one name inside a served zone. A name with none of these set
// is an empty non-terminal (it exists: NODATA, not NXDOMAIN; RFC 8020).
struct ServedName {
  uint32_t zone = kNoIndex;    // the longest served zone holding it (FindZone)
  uint32_t domain = kNoIndex;  // a GSLB name: index into snapshot().domains
  uint32_t grpc_config = kNoIndex;  // _grpc_config.<fqdn> of this domain index
  // _<service>._<protocol>.<fqdn>: this domain index, and the service's index
  // in its srv list.
  uint32_t srv_domain = kNoIndex;
  uint32_t srv_service = 0;
  // <node>.<fqdn>, a target of that domain's SRV records: its node index.
  uint32_t target_domain = kNoIndex;
  uint32_t target_node = kNoIndex;
  // A name server inside `zone`: index into zone(zone).config.ns.
  uint32_t name_server = kNoIndex;
  bool apex = false;
};

class ServingState {
 public:
  // Builds the state for `snapshot`; zones from `zones`, plus defaults for any
  // domain zone not listed. Returns null and sets `error` when the combination
  // is unusable (an invalid name, a domain outside its zone, two domains or a
  // domain and a name server on one name, a CNAME fallback at a zone apex, a
  // gRPC config too large for one TXT record, a name server listed twice, one
  // inside its zone without an address or one outside with addresses, an SRV
  // name or target that is not a name or is taken).
  static std::shared_ptr<const ServingState> Make(
      std::shared_ptr<const Snapshot> snapshot,
      const std::vector<ZoneConfig>& zones, std::string* error);

  const Snapshot& snapshot() const { return *snapshot_; }
  const std::shared_ptr<const Snapshot>& snapshot_ptr() const {
    return snapshot_;
  }
  const Classifier& classifier() const { return classifier_; }

  // Lookups by lower-case wire-format name; no allocation.
  // The index of the longest served zone containing `name`, or kNoIndex.
  uint32_t FindZone(std::string_view name) const;

  // A lowercase wire name with its NameHash: the responder hashes each
  // question once, for this table and for the rate limiter's key.
  struct HashedName {
    std::string_view name;
    size_t hash = 0;
    friend bool operator==(const HashedName& a, const std::string& b) {
      return a.name == b;
    }
  };
  static size_t NameHash(std::string_view name) {
    return std::hash<std::string_view>{}(name);
  }

  // The name's entry, or null when it does not exist in any served zone.
  const ServedName* FindName(std::string_view name) const {
    return FindName(HashedName{name, NameHash(name)});
  }
  const ServedName* FindName(const HashedName& name) const;

  const ServedZone& zone(uint32_t index) const { return zones_[index]; }
  const ServedDomain& domain(uint32_t index) const { return domains_[index]; }
  // SOA SERIAL: the snapshot version modulo 2^32 (RFC 1982 arithmetic).
  uint32_t serial() const { return static_cast<uint32_t>(snapshot_->version); }

  enum class GeoAttach : uint8_t {
    kNone,    // already attached for this resolver, or it is not compiled
    kBuilt,   // compiled for this state
    kReused,  // the previous state's map: same resolver, same geo criteria
  };
  // Attaches this snapshot's geo step over `geo` (GeoRegionMap) unless that
  // is already done for this resolver. Compiling takes tens of milliseconds
  // with dbip in a release build (hundreds in Debug), nearly all of a
  // snapshot load; yet most new snapshots (a Node, Rule or Canary edit, a
  // health change) leave the Regions' geo criteria alone. So when `previous`
  // (the state served before, or null) holds a map for this resolver and its
  // classifier's geo step is the same (Classifier::SameGeoStep), that map is
  // shared instead. Called by loaders and housekeeping, never by queries.
  // Thread-safe.
  GeoAttach AttachGeo(const GeoResolver& geo,
                      const ServingState* previous) const;
  // The latest attached map (null before any): take it once per batch with
  // the state and check its generation against the resolver in use.
  std::shared_ptr<const GeoRegionMap> geo_regions() const {
    return geo_regions_.load(std::memory_order_acquire);
  }
  // Counts the maps attached so far (see SnapshotStore::serves).
  uint64_t geo_attachments() const {
    return geo_attachments_.load(std::memory_order_acquire);
  }

 private:
  struct KeyHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return NameHash(s); }
    size_t operator()(const HashedName& n) const { return n.hash; }
  };
  template <typename V>
  using NameMap = std::unordered_map<std::string, V, KeyHash, std::equal_to<>>;

  explicit ServingState(std::shared_ptr<const Snapshot> snapshot);
  bool AddZone(ZoneConfig config, std::string* error);
  // Indexes the in-zone name servers of zones_[zone]; needs every zone added.
  bool AddNameServers(uint32_t zone, std::string* error);
  bool AddDomain(uint32_t index, std::string* error);
  // The SRV names of domain `index` and its targets, one per node.
  bool AddSrv(uint32_t index, uint32_t zone, std::string* error);
  // `text` as a new name with data of domain `index` (its wire form in
  // `wire`), or null with `error` set when it is not a name or already has
  // data.
  ServedName* AddDataName(uint32_t index, const std::string& what,
                          const std::string& text, uint32_t zone,
                          std::string& wire, std::string* error);
  // Adds `name` (wire, lower case) and its ancestors up to the zone apex as
  // empty non-terminals; returns the entry for `name`.
  ServedName& AddName(const std::string& name, uint32_t zone);

  std::shared_ptr<const Snapshot> snapshot_;
  Classifier classifier_;
  mutable std::atomic<std::shared_ptr<const GeoRegionMap>> geo_regions_;
  mutable std::atomic<uint64_t> geo_attachments_{0};
  std::vector<ServedZone> zones_;
  std::vector<ServedDomain> domains_;
  NameMap<uint32_t> zone_index_;
  NameMap<ServedName> names_;
};

}  // namespace ax::dns
