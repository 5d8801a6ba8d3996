// GET /v1/explain?name=NAME&client=IP[&ecs=PREFIX][&qtype=A|AAAA|ANY][&seed=N]:
// the core's explanation (ax/explain.h) of the answer the live snapshot and
// geo databases give, with the client chosen exactly as the responder chooses
// it (an ECS prefix is capped at /24 or /56; SOURCE 0 means the resolver
// address). Pure: the caller passes the state, the resolver and the clock.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "geo/geo_resolver.h"
#include "responder/serving_state.h"

namespace ax::dns {

struct JsonReply {
  int status = 200;
  nlohmann::json body;
};

using QueryParams = std::multimap<std::string, std::string>;

// 200 with the explanation; 400 for a missing or bad parameter, 404 when the
// name is not a served domain, 503 when no snapshot is loaded (`state` null).
// `geo` may be null (no geo databases).
JsonReply ExplainQuery(const QueryParams& params, const ServingState* state,
                       const GeoResolver* geo, int64_t now_ms);

}  // namespace ax::dns
