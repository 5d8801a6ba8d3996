// Parameter checks, then ax::DomainEndpoints or ax::ClientEndpoints.
#include "server/endpoints_handler.h"

#include <optional>

#include "ax/endpoints.h"

namespace ax::dns {

JsonReply EndpointsQuery(const QueryParams& params, const ServingState* state,
                         const GeoResolver* geo, int64_t now_ms) {
  const std::optional<std::string> name = Param(params, "name");
  if (!name || name->empty()) {
    return BadRequest("name: required (a served FQDN)");
  }
  std::string error;
  const std::optional<ClientQuery> q = ParseClientQuery(params, false, &error);
  if (!q) return BadRequest(error);
  if (q->srv) {
    return BadRequest(
        "qtype: A, AAAA or ANY here (domain.srv names the SRV records; "
        "/v1/explain shows a client's)");
  }
  const std::optional<std::string> region = Param(params, "region");
  const bool for_client = q->resolver || q->subnet;
  if (region && for_client) {
    return BadRequest(
        "region: give a Region or a client (client=, ecs=), not both");
  }
  if (!state) return {503, {{"error", "no snapshot loaded yet"}}};

  nlohmann::json out;
  if (for_client) {
    const ChosenClient client = ChooseClient(*q, geo);
    out = ClientEndpoints(state->snapshot(), state->classifier(), *name,
                          {.address = client.address.address,
                           .geo = client.geo,
                           .family = q->family},
                          now_ms);
    if (!out.contains("error")) AddClientFields(*q, client, out);
  } else {
    out = DomainEndpoints(state->snapshot(), *name, region, now_ms);
  }
  if (out.contains("error")) return {404, std::move(out)};
  return {200, std::move(out)};
}

}  // namespace ax::dns
