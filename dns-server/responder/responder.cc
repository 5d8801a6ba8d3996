// Respond: header checks, RRL, EDNS and ECS handling, dispatch by class,
// truncation.
#include "responder/responder.h"

#include <algorithm>

#include "ax/hash.h"
#include "responder/answer.h"
#include "responder/client_subnet.h"
#include "responder/geo_regions.h"
#include "responder/rrl.h"
#include "wire/edns.h"
#include "wire/message_reader.h"
#include "wire/message_writer.h"

namespace ax::dns {
namespace {

// The largest response the transport allows: 64 KiB over TCP; over UDP 512
// without EDNS (RFC 1035 §4.2.1), else min(max(512, requester's size), ours)
// (RFC 6891 §6.2.5).
size_t ResponseLimit(const QueryMeta& meta, const EdnsQuery& edns,
                     uint16_t ours) {
  if (meta.transport == Transport::kTcp) return kMaxMessageSize;
  if (!edns.present) return kMaxUdpWithoutEdns;
  const size_t theirs = std::max<size_t>(kMaxUdpWithoutEdns, edns.udp_size);
  return std::min(theirs, std::max<size_t>(kMaxUdpWithoutEdns, ours));
}

// Flags copied into every response: the opcode, and for QUERY RD (RFC 1035
// §4.1.1) and CD (RFC 4035 §3.1.6). Header bits mean what their opcode says
// (RFC 6895 §2; UPDATE makes them Z, RFC 2136 §2.2), so for an opcode that is
// not implemented none is echoed.
uint16_t EchoedFlags(const Header& query) {
  const uint16_t bits = query.opcode() == kOpcodeQuery
                            ? kOpcodeMask | kFlagRd | kFlagCd
                            : kOpcodeMask;
  return kFlagQr | (query.flags & bits);
}

// What RRL counts an answer as within its class (rrl.h): the name, type and
// client subnet. Known before the answer is, so its bucket can be fetched
// while the answer is built.
uint64_t RrlAnswerKey(const PreparedQuery& p) {
  const ParsedQuery& q = p.q;
  const ClientAddress& client = p.client;
  uint64_t name = p.name_hash;
  name ^= uint64_t{q.question.qtype} << 48;
  if (client.from_ecs) {
    name ^= MulFold(PrefixWord(client.address, client.prefix_length),
                    0x94d049bb133111ebULL) ^
            static_cast<uint64_t>(client.prefix_length);
  }
  return name;
}

// The same for the other classes: the zone of an NXDOMAIN, nothing for
// errors.
uint64_t RrlOtherResponse(RrlClass cls, const ServingState* state,
                          const ParsedQuery& q) {
  if (cls == RrlClass::kNxDomain) {
    return state ? state->FindZone(q.question.lower.key()) : 0;
  }
  return 0;
}

// A query that gets an answer from the zones (rather than an error rcode).
bool Answerable(const PreparedQuery& p) {
  return p.q.header.opcode() == kOpcodeQuery && p.well_formed &&
         p.q.edns.version == 0;
}

}  // namespace

Responder::Responder(ResponderOptions options, uint64_t rng_seed,
                     RateLimiter* rrl)
    : options_(std::move(options)),
      rng_(rng_seed),
      rrl_rng_(~rng_seed),
      rrl_(rrl) {}

size_t Responder::Respond(const ServingState* state, GeoRefs geo,
                          const QueryMeta& meta, std::span<const uint8_t> query,
                          std::span<uint8_t> out, ResponseInfo* info) {
  PreparedQuery p;
  Prepare(geo, meta, query, &p);
  return Complete(state, geo, meta, p, out, info);
}

void Responder::Prepare(GeoRefs geo, const QueryMeta& meta,
                        std::span<const uint8_t> query, PreparedQuery* p) {
  ParsedQuery& q = p->q;
  // Too short to answer, or itself a response (answering those invites loops).
  p->parsed = ParseHeader(query, &q.header) && !q.header.qr();
  if (!p->parsed) return;
  p->source = Unmapped(meta.source);
  p->well_formed = ParseQuery(query, &q) == ParseStatus::kOk;
  p->client = ChooseClientAddress(p->source, q.edns, options_.ecs_max_v4,
                                  options_.ecs_max_v6);
  p->name_hash =
      q.has_question ? ServingState::NameHash(q.question.lower.key()) : 0;
  if (geo.regions != nullptr) geo.regions->Prefetch(p->client.address);
  // Most responses are answers: their bucket, when the sample reads it
  // (rrl.h), is a cache miss in a table of megabytes. Only an answerable
  // query gets an answer (NOERROR), so the key is kept for Check.
  p->rrl_key = 0;
  p->rrl_weight = 0;
  if (rrl_ && meta.transport == Transport::kUdp && Answerable(*p)) {
    p->rrl_key = rrl_->Key(p->source, RrlClass::kAnswer, RrlAnswerKey(*p));
    p->rrl_weight =
        rrl_->AnswerWeight(p->rrl_key, meta.mono_us, rrl_rng_.Next());
    if (p->rrl_weight != 0) rrl_->Prefetch(p->rrl_key);
  }
}

void Responder::PrefetchMore(GeoRefs geo, const PreparedQuery& p) {
  if (geo.regions != nullptr && p.parsed) {
    geo.regions->PrefetchRanges(p.client.address);
  }
}

size_t Responder::Complete(const ServingState* state, GeoRefs geo,
                           const QueryMeta& meta, const PreparedQuery& p,
                           std::span<uint8_t> out, ResponseInfo* info_out) {
  ResponseInfo scratch;
  ResponseInfo& info = info_out ? *info_out : scratch;
  info = ResponseInfo{};
  if (!p.parsed) {
    info.dropped = true;
    return 0;
  }
  const ParsedQuery& q = p.q;
  const IpAddress& source = p.source;
  const bool well_formed = p.well_formed;
  const EdnsQuery& edns = q.edns;
  info.qtype = q.question.qtype;

  const size_t limit = ResponseLimit(meta, edns, options_.edns_udp_size);
  MessageWriter w(out, limit);
  w.header().id = q.header.id;
  if (q.has_question) {
    w.AddQuestion(q.question.name, q.question.qtype, q.question.qclass);
  }

  // RFC 7871 §7.2.1: a query's valid ECS option is echoed, whatever the answer.
  const bool answerable = Answerable(p);
  ClientSubnet ecs_echo = edns.client_subnet;
  EdnsReply reply{.udp_size = std::max<uint16_t>(options_.edns_udp_size,
                                                 kMaxUdpWithoutEdns),
                  .dnssec_ok = edns.dnssec_ok};
  if (answerable && edns.has_client_subnet) {
    reply.client_subnet = &ecs_echo;
    info.ecs = true;
  }
  const size_t opt_size = edns.present ? OptSize(reply) : 0;
  // RFC 6891 §7: room for the OPT record is kept whatever else is dropped.
  w.set_limit(limit > opt_size ? limit - opt_size : 0);

  const ClientAddress& client = p.client;
  info.client = client;
  const bool limited = rrl_ && meta.transport == Transport::kUdp;
  uint64_t rrl_key = p.rrl_key;
  uint32_t rrl_weight = p.rrl_weight;
  AnswerOutcome outcome;
  if (q.header.opcode() != kOpcodeQuery) {
    outcome.rcode = kRcodeNotImp;  // RFC 1035 §4.1.1
  } else if (!well_formed) {
    outcome.rcode = kRcodeFormErr;
  } else if (edns.version != 0) {
    outcome.rcode = kRcodeBadVers;  // RFC 6891 §6.1.3
  } else if (!state) {
    outcome.rcode = kRcodeServFail;
  } else if (q.question.qclass == kClassIn) {
    const AnswerContext ctx{*state, geo,  client,     meta.now_ms,
                            rng_,   info, p.name_hash};
    outcome = AnswerInternet(ctx, q.question, w);
  } else if (q.question.qclass == kClassCh) {
    outcome = AnswerChaos(options_.identity, q.question, w);
  } else {
    outcome.rcode = kRcodeRefused;
  }
  // Limited as what the response is (rrl.h), so it is judged after the
  // answer is known.
  bool truncated = false;
  if (limited) {
    const RrlClass cls = RrlClassOf(outcome.rcode);
    if (cls != RrlClass::kAnswer) {
      rrl_key = rrl_->Key(source, cls, RrlOtherResponse(cls, state, q));
      rrl_weight = 1;  // few keys (rrl.h): each response is counted
    }
    const RrlVerdict verdict =
        rrl_->Check(rrl_key, cls, meta.mono_us, rrl_weight);
    info.rrl_limited = verdict != RrlVerdict::kAllow;
    if (verdict == RrlVerdict::kDrop) {
      info.dropped = true;
      info.rcode = static_cast<uint8_t>(outcome.rcode);
      return 0;
    }
    if (verdict == RrlVerdict::kSlip) {
      // No records, no verdict: TC so a real client asks again over TCP.
      outcome = AnswerOutcome{};
      w.RollbackToQuestion();
      truncated = true;
    }
  }
  if (w.overflow()) {
    // RFC 2181 §9: when the answer does not fit, send none of it and set TC.
    w.RollbackToQuestion();
    truncated = true;
  }
  w.set_limit(limit);
  // A SOURCE 0 answer was tailored to the resolver, not to a client subnet: it
  // is for other /0 queries only (RFC 7871 §7.1.2, §7.3.1), so SCOPE 0.
  ecs_echo.scope_prefix =
      static_cast<uint8_t>(client.from_ecs ? outcome.ecs_scope : 0);
  info.ecs_scope = info.ecs ? ecs_echo.scope_prefix : 0;
  info.answers =
      static_cast<uint8_t>(std::min<uint16_t>(w.count(Section::kAnswer), 255));
  info.truncated = truncated;
  info.rcode = static_cast<uint8_t>(outcome.rcode);
  uint16_t flags = EchoedFlags(q.header) | (outcome.rcode & 0xF);
  if (outcome.authoritative) flags |= kFlagAa;
  if (truncated) flags |= kFlagTc;
  w.header().flags = flags;
  if (edns.present) {
    reply.extended_rcode = static_cast<uint8_t>(outcome.rcode >> 4);
    AddOpt(w, reply);
  }
  const size_t size = w.Finish();
  if (size == 0) info.dropped = true;
  return size;
}

}  // namespace ax::dns
