// GET /v1/endpoints?name=FQDN[&region=R | &client=IP[&ecs=PREFIX]][&qtype=..]:
// the route table as proxies read it (ax/endpoints.h): every Region's ranked
// endpoints of a Domain, one Region's ("" for unmatched clients), or the
// entry and answer of one client chosen as the responder chooses it
// (client_query.h). Pure: the caller passes the state, the resolver and the
// clock; waiting for a new version (wait=) is the HTTP server's.
#pragma once

#include <cstdint>

#include "geo/geo_resolver.h"
#include "responder/serving_state.h"
#include "server/client_query.h"

namespace ax::dns {

// 200 with the view; 400 for a missing or bad parameter, 404 when the name
// is not served or the Region does not exist, 503 when no snapshot is loaded
// (`state` null). `geo` may be null (no geo databases).
JsonReply EndpointsQuery(const QueryParams& params, const ServingState* state,
                         const GeoResolver* geo, int64_t now_ms);

}  // namespace ax::dns
