// CheckQuery: Respond with RRL and geo on, ldns as the independent oracle.
#include <array>
#include <vector>

#include "fuzz_targets.h"
#include "fuzz_world.h"
#include "responder/responder.h"
#include "wire/protocol.h"

// Last: ldns's C headers define macros that break C++ standard headers after
// them.
#include <ldns/ldns.h>

namespace ax::fuzz {

std::string CheckQuery(Input input) {
  static const std::array<IpAddress, 4> kSources = {
      *ParseIp("198.51.100.7"), *ParseIp("203.0.113.9"),
      *ParseIp("::ffff:203.0.113.9"), *ParseIp("2001:db8::1")};
  // The monotonic clock moves with the input, so buckets fill and refill.
  const dns::QueryMeta meta{
      kSources[input.size() % kSources.size()],
      input.size() % 3 == 2 ? dns::Transport::kTcp : dns::Transport::kUdp,
      1'000'000, uint64_t{5'000'000'000} + input.size() * 10'000};
  const dns::ServingState& state = FuzzState();
  dns::Responder responder(dns::ResponderOptions{.identity = "fuzz"},
                           input.size(), &FuzzRrl());
  std::vector<uint8_t> out(dns::kMaxMessageSize);
  const size_t size = responder.Respond(
      &state, dns::GeoRefs(&FuzzGeo(), state.geo_regions().get()), meta, input,
      out);
  if (size == 0) return "";
  const size_t limit =
      meta.transport == dns::Transport::kTcp ? dns::kMaxMessageSize : 1232;
  if (size > limit) return "response of " + std::to_string(size) + " octets";
  ldns_pkt* pkt = nullptr;
  if (ldns_wire2pkt(&pkt, out.data(), size) != LDNS_STATUS_OK) {
    return "ldns cannot parse the response";
  }
  std::string problem;
  if (!ldns_pkt_qr(pkt)) problem = "QR not set";
  if (ldns_pkt_id(pkt) != (input[0] << 8 | input[1])) problem = "ID not echoed";
  if (ldns_pkt_get_rcode(pkt) == LDNS_RCODE_SERVFAIL) problem = "SERVFAIL";
  ldns_pkt_free(pkt);
  return problem;
}

}  // namespace ax::fuzz
