// What the fuzz checks answer from: one serving state of the responder's test
// world, with the geo test MMDBs attached, and one rate limiter; built once,
// on first use. A failure to build them aborts: there is nothing to fuzz.
#pragma once

#include "geo/geo_resolver.h"
#include "responder/rrl.h"
#include "responder/serving_state.h"

namespace ax::fuzz {

const dns::ServingState& FuzzState();
const dns::GeoResolver& FuzzGeo();  // the state's geo step is attached to it
dns::RateLimiter& FuzzRrl();

}  // namespace ax::fuzz
