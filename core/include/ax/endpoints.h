// The route table as proxies and sidecars read it (ax-dns GET /v1/endpoints):
// for one Domain, per Region (or for one client), the ranked endpoints its DNS
// answers are picked from, with their weights, health and score, the fallback
// step, Rules, Canary and spill-over in force, and the snapshot's version. A
// proxy balancing by these weights over the healthy endpoints does what DNS
// clients of that Region get, without a DNS round trip. Pure: presentation of
// the snapshot; every decision is Classify's and Decide's.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "ax/classify.h"
#include "ax/ip.h"
#include "ax/snapshot.h"

namespace ax {

// Every Region's entry, or only the one named `region` ("" names the entry
// for clients no Region matches). {"error": ...} when `fqdn` is not served or
// the Region does not exist; the caller maps that to 404.
nlohmann::json DomainEndpoints(const Snapshot& snapshot,
                               const std::string& fqdn,
                               const std::optional<std::string>& region,
                               int64_t now_ms);

struct EndpointsClient {
  IpAddress address;  // the ECS address or the resolver's, as DNS uses it
  GeoInfo geo;        // what the geo/ASN databases said about it
  std::optional<IpFamily> family = IpFamily::kV4;  // A; AAAA; nullopt: any
};

// The entry of the Region `client` is classified into, plus the client's own
// answer (Decide with seed 0: its canary cohort, spill-over share and slow
// start applied, the addresses of `family`) under "answer".
nlohmann::json ClientEndpoints(const Snapshot& snapshot,
                               const Classifier& classifier,
                               const std::string& fqdn,
                               const EndpointsClient& client, int64_t now_ms);

}  // namespace ax
