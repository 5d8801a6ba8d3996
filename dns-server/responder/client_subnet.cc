// Client address choice and ECS scope.
#include "responder/client_subnet.h"

#include <algorithm>

#include "ax/decide.h"

namespace ax::dns {

IpAddress Unmapped(const IpAddress& ip) {
  if (ip.family != IpFamily::kV6) return ip;
  for (int i = 0; i < 10; ++i) {
    if (ip.bytes[i] != 0) return ip;
  }
  if (ip.bytes[10] != 0xFF || ip.bytes[11] != 0xFF) return ip;
  IpAddress v4;
  v4.family = IpFamily::kV4;
  for (int i = 0; i < 4; ++i) v4.bytes[i] = ip.bytes[12 + i];
  return v4;
}

ClientAddress ChooseClientAddress(const IpAddress& source,
                                  const EdnsQuery& edns, int cap_v4,
                                  int cap_v6) {
  const ClientSubnet& ecs = edns.client_subnet;
  if (!edns.has_client_subnet || ecs.source_prefix == 0) {
    const IpAddress ip = Unmapped(source);
    return {ip, ip.BitLength(), false};
  }
  IpAddress ip;
  ip.family = ecs.family == kEcsFamilyV4 ? IpFamily::kV4 : IpFamily::kV6;
  for (size_t i = 0; i < ecs.address_length(); ++i)
    ip.bytes[i] = ecs.address[i];
  const int cap = ip.family == IpFamily::kV4 ? cap_v4 : cap_v6;
  const int used = std::min<int>(ecs.source_prefix, cap);
  return {Mask(ip, used), used, true};
}

int AnswerScope(const Classification& classification,
                const ClientAddress& client, const ScopeInputs& inputs) {
  int scope = 0;
  if (inputs.depends_on_region) {
    scope = std::min(classification.scope_prefix_length, client.prefix_length);
  }
  if (inputs.depends_on_subnet) {
    scope = std::max(scope, CohortPrefixLength(client.address.family));
  }
  return scope;
}

}  // namespace ax::dns
