// The API's client parameters (client_query.h).
#include "server/client_query.h"

#include <charconv>

#include "responder/responder.h"
#include "wire/edns.h"

namespace ax::dns {
namespace {

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

std::optional<std::string> Param(const QueryParams& params, const char* key) {
  const auto it = params.find(key);
  if (it == params.end()) return std::nullopt;
  return it->second;
}

JsonReply BadRequest(std::string message) {
  return {400, {{"error", std::move(message)}}};
}

std::optional<ClientQuery> ParseClientQuery(const QueryParams& params,
                                            bool required, std::string* error) {
  ClientQuery q;
  const std::optional<std::string> client_text = Param(params, "client");
  const std::optional<std::string> ecs_text = Param(params, "ecs");
  if (required && !client_text && !ecs_text) {
    *error = "client: required (the resolver's address), or give ecs";
    return std::nullopt;
  }
  if (client_text) {
    q.resolver = ParseIp(*client_text);
    if (!q.resolver) {
      *error = "client: not an IP address: " + *client_text;
      return std::nullopt;
    }
  }
  if (ecs_text) {
    q.subnet = ParseSubnet(*ecs_text);
    if (!q.subnet) {
      *error = "ecs: not ADDR/LEN: " + *ecs_text;
      return std::nullopt;
    }
  }
  q.qtype = Param(params, "qtype").value_or("A");
  if (q.qtype == "AAAA") {
    q.family = IpFamily::kV6;
  } else if (q.qtype == "ANY" || q.qtype == "SRV") {
    q.family = std::nullopt;
    q.srv = q.qtype == "SRV";
  } else if (q.qtype != "A") {
    *error = "qtype: A, AAAA, ANY or SRV, not " + q.qtype;
    return std::nullopt;
  }
  return q;
}

ChosenClient ChooseClient(const ClientQuery& q, const GeoResolver* geo) {
  const ResponderOptions caps;
  ChosenClient c;
  c.address = ChooseClientAddress(
      Unmapped(q.resolver.value_or(q.subnet ? q.subnet->address : IpAddress{})),
      q.subnet ? EdnsWith(*q.subnet) : EdnsQuery{}, caps.ecs_max_v4,
      caps.ecs_max_v6);
  c.lookup_failed = geo && !geo->Lookup(c.address.address, c.geo,
                                        GeoResolver::Detail::kLocation);
  return c;
}

void AddClientFields(const ClientQuery& q, const ChosenClient& c,
                     nlohmann::json& out) {
  if (q.resolver) out["resolver"] = FormatIp(*q.resolver);
  if (q.subnet) {
    out["ecs"] = {{"subnet", FormatPrefix(*q.subnet)},
                  {"sourcePrefix", q.subnet->length},
                  {"usedPrefix", c.address.prefix_length},
                  {"used", c.address.from_ecs}};
  }
  out["geo"]["lookupFailed"] = c.lookup_failed;
}

}  // namespace ax::dns
