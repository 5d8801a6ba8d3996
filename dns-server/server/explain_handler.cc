// Parameter checks, the responder's client choice (client_query.h), then
// ax::Explain. Extra fields: "resolver", "ecs" and "geo.lookupFailed".
#include "server/explain_handler.h"

#include <charconv>
#include <optional>

#include "ax/explain.h"

namespace ax::dns {

JsonReply ExplainQuery(const QueryParams& params, const ServingState* state,
                       const GeoResolver* geo, int64_t now_ms) {
  const std::optional<std::string> name = Param(params, "name");
  if (!name || name->empty())
    return BadRequest("name: required (a served FQDN)");
  std::string error;
  const std::optional<ClientQuery> q = ParseClientQuery(params, true, &error);
  if (!q) return BadRequest(error);
  uint64_t seed = 0;
  if (const auto text = Param(params, "seed")) {
    const auto [ptr, ec] =
        std::from_chars(text->data(), text->data() + text->size(), seed);
    if (ec != std::errc() || ptr != text->data() + text->size()) {
      return BadRequest("seed: not an unsigned integer: " + *text);
    }
  }
  if (!state) return {503, {{"error", "no snapshot loaded yet"}}};

  const ChosenClient client = ChooseClient(*q, geo);
  nlohmann::json out = Explain(state->snapshot(), state->classifier(),
                               {.name = *name,
                                .client = client.address.address,
                                .geo = client.geo,
                                .family = q->family,
                                .srv = q->srv,
                                .now_ms = now_ms,
                                .seed = seed});
  if (out.contains("error")) return {404, std::move(out)};
  out["query"]["qtype"] = q->qtype;
  out["query"]["seed"] = seed;
  AddClientFields(*q, client, out);
  return {200, std::move(out)};
}

}  // namespace ax::dns
