// Names for the action types (actions.h).
#include "ax/controller/actions.h"

#include "ax/enum_names.h"

namespace ax::controller {
namespace {

constexpr NameTable<EventType, 2> kEventTypeNames{{
    {EventType::kNormal, "Normal"},
    {EventType::kWarning, "Warning"},
}};

}  // namespace

const char* EventTypeName(EventType type) {
  return NameOf(kEventTypeNames, type);
}

}  // namespace ax::controller
