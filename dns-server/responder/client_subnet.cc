// Client address choice and ECS scope.
#include "responder/client_subnet.h"

#include <algorithm>

#include "ax/decide.h"

namespace ax::dns {

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
