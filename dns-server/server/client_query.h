// What the read-only API's handlers share: the JSON reply, and the client a
// request names (client=IP: the resolver's address; ecs=ADDR/LEN: the subnet
// a resolver would send; qtype=A|AAAA|ANY|SRV) chosen exactly as the responder
// chooses it (an ECS prefix capped at /24 or /56; SOURCE 0 means the
// resolver's address) and looked up in the geo databases. Pure apart from
// the lookup through the resolver it is given.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "ax/classify.h"
#include "ax/ip.h"
#include "geo/geo_resolver.h"
#include "responder/client_subnet.h"

namespace ax::dns {

struct JsonReply {
  int status = 200;
  nlohmann::json body;
};

using QueryParams = std::multimap<std::string, std::string>;

std::optional<std::string> Param(const QueryParams& params, const char* key);
JsonReply BadRequest(std::string message);

struct ClientQuery {
  std::optional<IpAddress> resolver;  // client=
  std::optional<IpPrefix> subnet;     // ecs=
  std::string qtype = "A";
  std::optional<IpFamily> family = IpFamily::kV4;  // nullopt: ANY or SRV
  bool srv = false;                                // qtype SRV
};

// The client parameters, or nullopt with `error` naming the bad one. Neither
// client nor ecs given is an error only when `required`.
std::optional<ClientQuery> ParseClientQuery(const QueryParams& params,
                                            bool required, std::string* error);

struct ChosenClient {
  ClientAddress address;  // what classification and the cohort use
  GeoInfo geo;
  bool lookup_failed = false;
};

// The address the responder would use for `q`, and what `geo` (may be null:
// no databases) says about it.
ChosenClient ChooseClient(const ClientQuery& q, const GeoResolver* geo);

// The "resolver" and "ecs" fields explain and the endpoints view add.
void AddClientFields(const ClientQuery& q, const ChosenClient& c,
                     nlohmann::json& out);

}  // namespace ax::dns
