// The sections of a well-formed query's answer: class IN inside our zones (apex
// SOA/NS with glue, name server A/AAAA, GSLB A/AAAA via the core's Classify +
// Decide, fallback CNAME, gRPC TXT, SRV with its targets' A/AAAA,
// NXDOMAIN/NODATA with the SOA, minimal ANY)
// and the CHAOS identity TXT.
// Header flags, EDNS, truncation and rate limiting are responder.cc's.
#pragma once

#include <cstdint>
#include <string_view>

#include "ax/rng.h"
#include "responder/client_subnet.h"
#include "responder/responder.h"
#include "responder/serving_state.h"
#include "wire/message_reader.h"
#include "wire/message_writer.h"

namespace ax::dns {

struct AnswerContext {
  const ServingState& state;
  GeoRefs geo;
  const ClientAddress& client;
  int64_t now_ms;
  Rng& rng;
  ResponseInfo& info;  // domain, region, route and geo_failed are filled in
  size_t name_hash;    // ServingState::NameHash of the question's name
};

struct AnswerOutcome {
  uint16_t rcode = 0;
  bool authoritative = false;  // AA
  int ecs_scope = 0;           // SCOPE PREFIX-LENGTH for an echoed ECS option
};

// Class IN. Writes the answer, authority and (glue) additional sections into
// `writer`, whose question is `question`.
AnswerOutcome AnswerInternet(const AnswerContext& ctx, const Question& question,
                             MessageWriter& writer);

// Class CH: TXT id.server / hostname.bind name the instance (`identity`), as
// BIND and NSD do; anything else, or no identity configured, is REFUSED.
AnswerOutcome AnswerChaos(std::string_view identity, const Question& question,
                          MessageWriter& writer);

}  // namespace ax::dns
