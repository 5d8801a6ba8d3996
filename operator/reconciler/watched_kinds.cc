// GslbResource (watched_kinds.h).
#include "watched_kinds.h"

#include <string>

namespace ax::controller {

kube::Resource GslbResource(std::string_view kind, std::string_view ns) {
  return {kApiGroup, kApiGroupVersion, std::string(ApiPlural(kind)),
          std::string(ns), ""};
}

}  // namespace ax::controller
