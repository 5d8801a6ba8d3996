// The gslb.ax.io kinds as the Kubernetes API addresses them: group, version
// and each kind's plural (the CRDs' spec.names in crds/). One table for the
// operator's informers, axctl's cluster commands and the tests; which kinds a
// component reads is its own choice.
#pragma once

#include <array>
#include <string_view>

namespace ax {

inline constexpr char kApiGroup[] = "gslb.ax.io";
inline constexpr char kApiGroupVersion[] = "v1alpha1";
inline constexpr char kApiVersion[] = "gslb.ax.io/v1alpha1";  // apiVersion:

struct ApiKind {
  std::string_view kind;    // "Node"
  std::string_view plural;  // "nodes"
};

inline constexpr std::array<ApiKind, 9> kApiKinds = {{
    {"Domain", "domains"},
    {"Region", "regions"},
    {"Node", "nodes"},
    {"Rule", "rules"},
    {"Canary", "canaries"},
    {"IspSet", "ispsets"},
    {"GeoOverride", "geooverrides"},
    {"ProbeReport", "probereports"},
    {"MeasurementReport", "measurementreports"},
}};

// The plural of `kind`; "" for a kind not in the table.
constexpr std::string_view ApiPlural(std::string_view kind) {
  for (const ApiKind& k : kApiKinds) {
    if (k.kind == kind) return k.plural;
  }
  return {};
}

}  // namespace ax
