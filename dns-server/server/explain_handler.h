// GET /v1/explain?name=NAME&client=IP[&ecs=PREFIX][&qtype=A|AAAA|ANY][&seed=N]:
// the core's explanation (ax/explain.h) of the answer the live snapshot and
// geo databases give, with the client chosen exactly as the responder chooses
// it (client_query.h). Pure: the caller passes the state, the resolver and
// the clock.
#pragma once

#include <cstdint>

#include "geo/geo_resolver.h"
#include "responder/serving_state.h"
#include "server/client_query.h"

namespace ax::dns {

// 200 with the explanation; 400 for a missing or bad parameter, 404 when the
// name is not a served domain, 503 when no snapshot is loaded (`state` null).
// `geo` may be null (no geo databases).
JsonReply ExplainQuery(const QueryParams& params, const ServingState* state,
                       const GeoResolver* geo, int64_t now_ms);

}  // namespace ax::dns
