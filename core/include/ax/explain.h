// "Why did client X get node Y?": the whole decision chain for one (name,
// client) as a structured JSON document: classification and why, the route's
// fallback step, rules and canary applied, candidates with their score parts,
// the pick and the TTL reason. Runs the very same Classify and Decide the data
// plane runs, with a trace attached.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "ax/classify.h"
#include "ax/ip.h"
#include "ax/snapshot.h"

namespace ax {

struct ExplainRequest {
  std::string name;  // the queried name (any case, trailing dot optional)
  IpAddress client;  // ECS address or resolver source address
  GeoInfo geo;       // what the geo/ASN databases said about `client`
  std::optional<IpFamily> family = IpFamily::kV4;
  // qtype SRV: `name` is _<service>._<protocol>.<fqdn> of a Domain's spec.srv,
  // picked as SRV answers pick (srv.h) and shown as records under "srv".
  bool srv = false;
  int64_t now_ms = 0;
  uint64_t seed = 0;  // the RNG seed for random strategies, so the explanation
                      // is replayable
};

// A GeoOverride's evidence as manifests spell it (times RFC 3339); the
// explanation shows it the same way.
nlohmann::json GeoOverrideEvidenceJson(const GeoOverrideEvidence& evidence);

// The explanation; {"error": "..."} when the name is not a served domain.
nlohmann::json Explain(const Snapshot& snapshot, const Classifier& classifier,
                       const ExplainRequest& request);

}  // namespace ax
