// CheckQuery: Respond + ldns as the independent oracle.
#include "query_fuzz_check.h"

#include <array>
#include <memory>
#include <vector>

#include "responder/responder.h"
#include "responder/serving_state.h"
#include "responder_world.h"
#include "wire/protocol.h"

// Last: ldns's C headers define macros that break C++ standard headers after
// them.
#include <ldns/ldns.h>

namespace ax::dns::fuzz {
namespace {

const ServingState& State() {
  static const std::shared_ptr<const ServingState> state = [] {
    std::string error;
    auto s = ServingState::Make(
        std::make_shared<Snapshot>(testing::ResponderWorld().Build()), {},
        &error);
    if (!s)
      std::abort();  // the fixed world is valid; nothing to fuzz otherwise
    return s;
  }();
  return *state;
}

}  // namespace

std::string CheckQuery(std::span<const uint8_t> input) {
  static const std::array<IpAddress, 4> kSources = {
      *ParseIp("198.51.100.7"), *ParseIp("203.0.113.9"),
      *ParseIp("::ffff:203.0.113.9"), *ParseIp("2001:db8::1")};
  const QueryMeta meta{
      kSources[input.size() % kSources.size()],
      input.size() % 3 == 2 ? Transport::kTcp : Transport::kUdp, 1'000'000};
  Responder responder(ResponderOptions{.identity = "fuzz"}, input.size(),
                      nullptr);
  std::vector<uint8_t> out(kMaxMessageSize);
  const size_t size = responder.Respond(&State(), nullptr, meta, input, out);
  if (size == 0) return "";
  const size_t limit =
      meta.transport == Transport::kTcp ? kMaxMessageSize : 1232;
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

}  // namespace ax::dns::fuzz
