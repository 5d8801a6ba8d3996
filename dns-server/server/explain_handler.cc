// Parameter checks, the responder's client choice, the geo lookup, then
// ax::Explain. Extra fields: "resolver", "ecs" and "geo.lookupFailed".
#include "server/explain_handler.h"

#include <charconv>
#include <optional>

#include "ax/explain.h"
#include "responder/client_subnet.h"
#include "responder/responder.h"
#include "wire/edns.h"

namespace ax::dns {
namespace {

std::optional<std::string> Param(const QueryParams& params, const char* key) {
  const auto it = params.find(key);
  if (it == params.end()) return std::nullopt;
  return it->second;
}

JsonReply Bad(std::string message) {
  return {400, {{"error", std::move(message)}}};
}

// "ADDR/LEN" or a bare address (full length); host bits past LEN are allowed
// and cleared, as a resolver's ECS option has none.
std::optional<IpPrefix> ParseSubnet(const std::string& text) {
  const size_t slash = text.find('/');
  const std::optional<IpAddress> ip = ParseIp(text.substr(0, slash));
  if (!ip) return std::nullopt;
  int length = ip->BitLength();
  if (slash != std::string::npos) {
    const char* begin = text.data() + slash + 1;
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(begin, end, length);
    if (ec != std::errc() || ptr != end || begin == end || length < 0 ||
        length > ip->BitLength()) {
      return std::nullopt;
    }
  }
  return IpPrefix{Mask(*ip, length), length};
}

// The ECS option a resolver would send for `subnet`.
EdnsQuery EdnsWith(const IpPrefix& subnet) {
  EdnsQuery edns;
  edns.present = true;
  edns.has_client_subnet = true;
  ClientSubnet& ecs = edns.client_subnet;
  ecs.family =
      subnet.address.family == IpFamily::kV4 ? kEcsFamilyV4 : kEcsFamilyV6;
  ecs.source_prefix = static_cast<uint8_t>(subnet.length);
  for (size_t i = 0; i < ecs.address_length(); ++i) {
    ecs.address[i] = subnet.address.bytes[i];
  }
  return edns;
}

}  // namespace

JsonReply ExplainQuery(const QueryParams& params, const ServingState* state,
                       const GeoResolver* geo, int64_t now_ms) {
  const std::optional<std::string> name = Param(params, "name");
  if (!name || name->empty()) return Bad("name: required (a served FQDN)");
  const std::optional<std::string> client_text = Param(params, "client");
  const std::optional<std::string> ecs_text = Param(params, "ecs");
  if (!client_text && !ecs_text) {
    return Bad("client: required (the resolver's address), or give ecs");
  }
  std::optional<IpAddress> resolver;
  if (client_text) {
    resolver = ParseIp(*client_text);
    if (!resolver) return Bad("client: not an IP address: " + *client_text);
  }
  std::optional<IpPrefix> subnet;
  if (ecs_text) {
    subnet = ParseSubnet(*ecs_text);
    if (!subnet) return Bad("ecs: not ADDR/LEN: " + *ecs_text);
  }
  std::optional<IpFamily> family = IpFamily::kV4;
  const std::string qtype = Param(params, "qtype").value_or("A");
  if (qtype == "AAAA") {
    family = IpFamily::kV6;
  } else if (qtype == "ANY") {
    family = std::nullopt;
  } else if (qtype != "A") {
    return Bad("qtype: A, AAAA or ANY, not " + qtype);
  }
  uint64_t seed = 0;
  if (const auto text = Param(params, "seed")) {
    const auto [ptr, ec] =
        std::from_chars(text->data(), text->data() + text->size(), seed);
    if (ec != std::errc() || ptr != text->data() + text->size()) {
      return Bad("seed: not an unsigned integer: " + *text);
    }
  }
  if (!state) return {503, {{"error", "no snapshot loaded yet"}}};

  const ResponderOptions caps;
  const ClientAddress client = ChooseClientAddress(
      resolver.value_or(subnet ? subnet->address : IpAddress{}),
      subnet ? EdnsWith(*subnet) : EdnsQuery{}, caps.ecs_max_v4,
      caps.ecs_max_v6);
  GeoInfo info;
  const bool geo_ok =
      !geo || geo->Lookup(client.address, info, GeoResolver::Detail::kLocation);
  nlohmann::json out = Explain(state->snapshot(), state->classifier(),
                               {.name = *name,
                                .client = client.address,
                                .geo = info,
                                .family = family,
                                .now_ms = now_ms,
                                .seed = seed});
  if (out.contains("error")) return {404, std::move(out)};
  out["query"]["qtype"] = qtype;
  out["query"]["seed"] = seed;
  if (resolver) out["resolver"] = FormatIp(*resolver);
  if (subnet) {
    out["ecs"] = {{"subnet", FormatPrefix(*subnet)},
                  {"sourcePrefix", subnet->length},
                  {"usedPrefix", client.prefix_length},
                  {"used", client.from_ecs}};
  }
  out["geo"]["lookupFailed"] = !geo_ok;
  return {200, std::move(out)};
}

}  // namespace ax::dns
