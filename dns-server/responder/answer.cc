// Answer sections: name lookup, the GSLB pick and the records it turns into.
#include "responder/answer.h"

#include <algorithm>
#include <optional>
#include <span>
#include <vector>

#include "ax/decide.h"
#include "ax/srv.h"
#include "geo/geo_resolver.h"
#include "responder/geo_regions.h"

namespace ax::dns {
namespace {

std::span<const uint8_t> Bytes(std::string_view s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

void AddSoa(MessageWriter& w, Section section, const ServedZone& z,
            uint32_t serial, uint32_t ttl) {
  w.StartRecord(section, Bytes(z.apex), kTypeSoa, kClassIn, ttl);
  w.AddName(Bytes(z.mname));
  w.AddName(Bytes(z.rname));
  w.AddU32(serial);
  w.AddU32(z.config.refresh);
  w.AddU32(z.config.retry);
  w.AddU32(z.config.expire);
  w.AddU32(z.config.minimum);
  w.EndRecord();
}

// NXDOMAIN or NODATA: the zone's SOA in the authority section with the negative
// TTL, min(SOA TTL, MINIMUM) (RFC 2308 §3, §5).
AnswerOutcome Negative(MessageWriter& w, const ServingState& state,
                       const ServedZone& zone, uint16_t rcode, int scope = 0) {
  AddSoa(w, Section::kAuthority, zone, state.serial(), zone.negative_ttl);
  return {rcode, true, scope};
}

void AddAddress(MessageWriter& w, Section section,
                std::span<const uint8_t> owner, const IpAddress& ip,
                uint32_t ttl) {
  const bool v4 = ip.family == IpFamily::kV4;
  w.AddRecord(section, owner, v4 ? kTypeA : kTypeAaaa, kClassIn, ttl,
              {ip.bytes.data(), v4 ? 4u : 16u});
}

// A name's addresses in the additional section, all or none: optional data
// (RFC 9471 §3, RFC 2782) is left out whole name by whole name, without TC
// (RFC 2181 §9). Returns false when they did not fit, so the caller stops.
bool AddAdditionalAddresses(MessageWriter& w, std::span<const uint8_t> owner,
                            const std::vector<IpAddress>& addresses,
                            uint32_t ttl) {
  const MessageWriter::Mark before = w.mark();
  for (const IpAddress& ip : addresses) {
    AddAddress(w, Section::kAdditional, owner, ip, ttl);
  }
  if (!w.overflow()) return true;
  w.Rollback(before);
  return false;
}

// Addresses of `family` from the picked nodes, or from the domain's fallback
// list.
void AddAnswerAddresses(MessageWriter& w, const Question& q, const Snapshot& s,
                        const SnapshotDomain& d, const Answer& answer,
                        IpFamily family) {
  auto add_matching = [&](const std::vector<IpAddress>& addresses) {
    for (const IpAddress& ip : addresses) {
      if (ip.family == family) {
        AddAddress(w, Section::kAnswer, q.name.wire(), ip, answer.ttl);
      }
    }
  };
  if (answer.source == RouteSource::kDomainFallback) {
    add_matching(d.fallback.addresses);
    return;
  }
  for (uint32_t i = 0; i < answer.count; ++i) {
    add_matching(s.nodes[answer.nodes[i]].addresses);
  }
}

// The client's region. The snapshot's region map answers alone unless the
// pick needs the client's location or the databases must be read (an IPv6 /64
// they split further); `geo` is filled only when they were.
Classification ClassifyClient(const AnswerContext& ctx,
                              const ServedDomain& served, GeoInfo& geo) {
  const Classifier& classifier = ctx.state.classifier();
  const GeoResolver* resolver = ctx.geo.resolver;
  if (resolver == nullptr) return classifier.Classify(ctx.client.address, geo);
  if (!served.needs_location) {
    // Geo would go unused.
    if (!classifier.has_geo_regions()) {
      return classifier.Classify(ctx.client.address, geo);
    }
    if (ctx.geo.regions != nullptr &&
        ctx.geo.regions->generation() == resolver->generation()) {
      GeoRegionMap::GeoStep step;
      if (ctx.geo.regions->Lookup(ctx.client.address, &step)) {
        return classifier.Classify(ctx.client.address, step.match,
                                   step.prefix_length);
      }
    }
  }
  if (!resolver->Lookup(ctx.client.address, geo,
                        served.needs_location
                            ? GeoResolver::Detail::kLocation
                            : GeoResolver::Detail::kClassify)) {
    ctx.info.geo_failed = true;
  }
  return classifier.Classify(ctx.client.address, geo);
}

// Who asks, as a pick needs it: the client's Region (noted in info), cohort
// and location.
struct PickInputs {
  Classification cls;
  ClientContext client;
};

PickInputs ClassifyForPick(const AnswerContext& ctx,
                           const ServedDomain& served) {
  GeoInfo geo;
  // Built in place: assigned, the classification would be copied.
  PickInputs in{.cls = ClassifyClient(ctx, served, geo)};
  ctx.info.region = in.cls.region;
  in.client = {ClientCohort(ctx.client.address), geo.has_location,
               geo.location};
  return in;
}

// Notes the pick in info; returns the ECS scope the answer holds for.
int PickScope(const AnswerContext& ctx, const ServedDomain& served,
              const Classification& cls, const Answer& answer) {
  ctx.info.route = answer.route;
  ctx.info.decision = answer;
  const Route& route = ctx.state.snapshot().routes[answer.route];
  const bool picked = answer.source != RouteSource::kDomainFallback &&
                      answer.source != RouteSource::kFailOpen;
  const ScopeInputs inputs{
      .depends_on_region = !served.one_route,
      .depends_on_subnet =
          picked && (route.canary != kNoIndex || served.subnet_strategy)};
  return AnswerScope(cls, ctx.client, inputs);
}

// A GSLB name. Only address records (or the fallback CNAME, which stands for
// every type, RFC 1034 §3.6.2) live here; ANY gets one address RRset (RFC 8482
// §4.1).
AnswerOutcome AnswerDomain(const AnswerContext& ctx, const Question& q,
                           uint32_t index, const ServedZone& zone,
                           MessageWriter& w) {
  const Snapshot& s = ctx.state.snapshot();
  const SnapshotDomain& d = s.domains[index];
  const ServedDomain& served = ctx.state.domain(index);
  ctx.info.domain = index;
  std::optional<IpFamily> families[2];
  size_t family_count = 1;
  switch (q.qtype) {
    case kTypeA:
      families[0] = IpFamily::kV4;
      break;
    case kTypeAaaa:
      families[0] = IpFamily::kV6;
      break;
    case kTypeAny:
      families[0] = IpFamily::kV4;
      families[1] = IpFamily::kV6;
      family_count = 2;
      break;
    default:
      // No address wanted: only a CNAME could answer, and only some routes have
      // one.
      if (served.cname.empty())
        return Negative(w, ctx.state, zone, kRcodeNoError);
  }
  const PickInputs in = ClassifyForPick(ctx, served);
  auto decide = [&](std::optional<IpFamily> family) {
    return Decide(s, d, in.cls.region, in.client, family, ctx.now_ms, ctx.rng);
  };
  auto add = [&](const Answer& answer, std::optional<IpFamily> family) {
    if (answer.source == RouteSource::kDomainFallback &&
        !served.cname.empty()) {
      // Not chased, even into our own zones: the resolver restarts at the
      // target.
      w.StartRecord(Section::kAnswer, q.name.wire(), kTypeCname, kClassIn,
                    answer.ttl);
      w.AddName(Bytes(served.cname));
      w.EndRecord();
    } else if (family) {
      AddAnswerAddresses(w, q, s, d, answer, *family);
    }
  };
  // Initialised, not assigned: the copy of an assigned Answer read it back
  // wider than Decide wrote it (a stalled store-to-load forward per answer).
  Answer answer = decide(families[0]);
  add(answer, families[0]);
  if (family_count == 2 && w.count(Section::kAnswer) == 0) {
    answer = decide(families[1]);  // ANY, and no A record
    add(answer, families[1]);
  }
  const int scope = PickScope(ctx, served, in.cls, answer);
  if (w.count(Section::kAnswer) == 0) {
    return Negative(w, ctx.state, zone, kRcodeNoError, scope);
  }
  return {kRcodeNoError, true, scope};
}

// SRV at _<service>._<protocol>.<fqdn> (RFC 2782): the domain's pick for
// this client (srv.h) as targets <node>.<fqdn> on the service's port, with
// their addresses in the additional section (RFC 2782 urges it; HAProxy takes
// them from there), left out whole per target when they do not fit. A
// DomainFallback answer names the fallback CNAME's target, or the fqdn itself
// when it answers fixed addresses.
AnswerOutcome AnswerSrv(const AnswerContext& ctx, const Question& q,
                        const ServedName& name, const ServedZone& zone,
                        MessageWriter& w) {
  if (q.qtype != kTypeSrv && q.qtype != kTypeAny) {
    return Negative(w, ctx.state, zone, kRcodeNoError);  // NODATA
  }
  const Snapshot& s = ctx.state.snapshot();
  const SnapshotDomain& d = s.domains[name.srv_domain];
  const ServedDomain& served = ctx.state.domain(name.srv_domain);
  ctx.info.domain = name.srv_domain;
  const PickInputs in = ClassifyForPick(ctx, served);
  const Answer answer =
      DecideSrv(s, d, in.cls.region, in.client, ctx.now_ms, ctx.rng);
  const int scope = PickScope(ctx, served, in.cls, answer);
  const uint16_t port = d.srv[name.srv_service].port;
  auto add_srv = [&](uint16_t priority, uint16_t weight,
                     const std::string& target) {
    w.StartRecord(Section::kAnswer, q.name.wire(), kTypeSrv, kClassIn,
                  answer.ttl);
    w.AddU16(priority);
    w.AddU16(weight);
    w.AddU16(port);
    w.AddBytes(Bytes(target));  // not compressed (RFC 2782, RFC 3597 §4)
    w.EndRecord();
  };
  if (answer.source == RouteSource::kDomainFallback) {
    // The target must not be an alias (RFC 2782): the CNAME's target itself.
    add_srv(0, 0, served.cname.empty() ? served.fqdn : served.cname);
  }
  const SrvTargets targets = SrvTargetsOf(s, d, answer);
  for (uint32_t i = 0; i < targets.count; ++i) {
    const SrvTarget& t = targets.targets[i];
    add_srv(t.priority, t.weight, served.srv_targets[t.node]);
  }
  for (uint32_t i = 0; i < targets.count; ++i) {
    const uint32_t node = targets.targets[i].node;
    if (!AddAdditionalAddresses(w, Bytes(served.srv_targets[node]),
                                s.nodes[node].addresses, d.ttl.steady)) {
      break;
    }
  }
  if (w.count(Section::kAnswer) == 0) {
    return Negative(w, ctx.state, zone, kRcodeNoError, scope);
  }
  return {kRcodeNoError, true, scope};
}

// Fixed addresses at a name: an in-zone name server's (with the zone's TTL)
// or an SRV target's (the node's, with its domain's steady TTL). ANY gets one
// RRset (RFC 8482 §4.1): A, or AAAA when there is no A.
AnswerOutcome AnswerAddresses(const ServingState& state, const Question& q,
                              const std::vector<IpAddress>& addresses,
                              uint32_t ttl, const ServedZone& zone,
                              MessageWriter& w) {
  for (const IpFamily family : {IpFamily::kV4, IpFamily::kV6}) {
    const uint16_t type = family == IpFamily::kV4 ? kTypeA : kTypeAaaa;
    if (q.qtype != type &&
        (q.qtype != kTypeAny || w.count(Section::kAnswer) != 0)) {
      continue;
    }
    for (const IpAddress& ip : addresses) {
      if (ip.family == family) {
        AddAddress(w, Section::kAnswer, q.name.wire(), ip, ttl);
      }
    }
  }
  if (w.count(Section::kAnswer) == 0) {
    return Negative(w, state, zone, kRcodeNoError);  // NODATA
  }
  return {kRcodeNoError, true, 0};
}

// The addresses we serve for `zone`'s name servers, in the additional section
// of its NS answer (RFC 1035 §3.3.11 additional section processing, RFC 1034
// §4.3.2 step 6), whichever served zone holds them. Optional outside a
// referral (RFC 9471 §3).
void AddGlue(MessageWriter& w, const ServingState& state,
             const ServedZone& zone) {
  for (const std::string& ns : zone.ns) {
    const ServedName* target = state.FindName(ns);
    if (!target || target->name_server == kNoIndex) continue;
    const ServedZone& owner = state.zone(target->zone);
    if (!AddAdditionalAddresses(w, Bytes(ns),
                                owner.config.ns[target->name_server].addresses,
                                owner.config.ttl)) {
      return;
    }
  }
}

}  // namespace

AnswerOutcome AnswerInternet(const AnswerContext& ctx, const Question& q,
                             MessageWriter& w) {
  // Zone transfers are not offered (RFC 5936 §4.2 lets a server refuse them).
  if (q.qtype == kTypeAxfr || q.qtype == kTypeIxfr)
    return {kRcodeRefused, false, 0};
  const ServingState& state = ctx.state;
  // A served name knows its zone: one lookup instead of one per label for
  // nearly every query; only names we do not serve search for their zone.
  const ServedName* name = state.FindName({q.lower.key(), ctx.name_hash});
  const uint32_t zone_index = name ? name->zone : state.FindZone(q.lower.key());
  if (zone_index == kNoIndex) return {kRcodeRefused, false, 0};  // not our zone
  const ServedZone& zone = state.zone(zone_index);
  if (!name) return Negative(w, state, zone, kRcodeNxDomain);
  if (name->apex && (q.qtype == kTypeSoa || q.qtype == kTypeAny)) {
    // ANY at the apex: the SOA alone (RFC 8482 §4.1).
    AddSoa(w, Section::kAnswer, zone, state.serial(), zone.config.ttl);
    return {kRcodeNoError, true, 0};
  }
  if (name->apex && q.qtype == kTypeNs) {
    for (const std::string& ns : zone.ns) {
      w.StartRecord(Section::kAnswer, q.name.wire(), kTypeNs, kClassIn,
                    zone.config.ttl);
      w.AddName(Bytes(ns));
      w.EndRecord();
    }
    AddGlue(w, state, zone);
    return {kRcodeNoError, true, 0};
  }
  if (name->domain != kNoIndex)
    return AnswerDomain(ctx, q, name->domain, zone, w);
  if (name->name_server != kNoIndex) {
    return AnswerAddresses(state, q,
                           zone.config.ns[name->name_server].addresses,
                           zone.config.ttl, zone, w);
  }
  if (name->srv_domain != kNoIndex) return AnswerSrv(ctx, q, *name, zone, w);
  if (name->target_domain != kNoIndex) {
    return AnswerAddresses(
        state, q, state.snapshot().nodes[name->target_node].addresses,
        state.snapshot().domains[name->target_domain].ttl.steady, zone, w);
  }
  if (name->grpc_config != kNoIndex &&
      (q.qtype == kTypeTxt || q.qtype == kTypeAny)) {
    const SnapshotDomain& d = state.snapshot().domains[name->grpc_config];
    w.StartRecord(Section::kAnswer, q.name.wire(), kTypeTxt, kClassIn,
                  d.ttl.steady);
    w.AddBytes(Bytes(state.domain(name->grpc_config).grpc_txt));
    w.EndRecord();
    return {kRcodeNoError, true, 0};
  }
  return Negative(w, state, zone, kRcodeNoError);  // NODATA
}

AnswerOutcome AnswerChaos(std::string_view identity, const Question& q,
                          MessageWriter& w) {
  static constexpr std::string_view kIdServer("\2id\6server\0", 11);
  static constexpr std::string_view kHostnameBind("\10hostname\4bind\0", 15);
  const std::string_view name = q.lower.key();
  if (identity.empty() || (name != kIdServer && name != kHostnameBind)) {
    return {kRcodeRefused, false, 0};
  }
  if (q.qtype == kTypeTxt || q.qtype == kTypeAny) {
    const size_t n = std::min<size_t>(identity.size(), 255);
    w.StartRecord(Section::kAnswer, q.name.wire(), kTypeTxt, kClassCh, 0);
    w.AddU8(static_cast<uint8_t>(n));
    w.AddBytes(Bytes(identity.substr(0, n)));
    w.EndRecord();
  }
  return {kRcodeNoError, true, 0};
}

}  // namespace ax::dns
