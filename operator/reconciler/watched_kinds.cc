// GslbResource (watched_kinds.h).
#include "watched_kinds.h"

#include <string>

namespace ax::controller {

kube::Resource GslbResource(std::string_view kind, std::string_view ns) {
  kube::Resource r{std::string(kGslbGroup), std::string(kGslbVersion), "",
                   std::string(ns), ""};
  for (const WatchedKind& k : kWatchedKinds) {
    if (k.kind == kind) r.plural = k.plural;
  }
  return r;
}

}  // namespace ax::controller
