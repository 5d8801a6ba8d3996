// Internal to core/src: how the snapshot document spells numbers and error
// locations, shared by snapshot_json.cc (reading and writing) and
// snapshot_validate.cc (invariants) so both agree on precision and paths. No
// JSON and no field layout here; the layout lives in snapshot_json.cc only.
#pragma once

#include <cmath>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ax/snapshot_validate.h"

namespace ax::snapshot_doc {

using Errors = std::vector<SnapshotError>;

// Decimal places kept per kind of double. Rounding before writing makes the
// text reproducible (parse -> serialise is byte-identical) and drops
// meaningless noise.
inline constexpr int kScoreDecimals = 4;    // score factors, utilisation
inline constexpr int kWeightDecimals = 4;   // candidate weights
inline constexpr int kLatencyDecimals = 1;  // milliseconds
inline constexpr int kPercentDecimals = 4;  // canary share
inline constexpr int kCoordDecimals = 6;    // degrees, ~0.1 m

inline double Quantise(double v, int decimals) {
  constexpr double kScale[] = {1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6};
  return std::round(v * kScale[decimals]) / kScale[decimals];
}

// Error paths: Element("routes", 3) is "routes[3]", Child("a", "b") is "a.b".
inline std::string Element(std::string_view base, size_t i) {
  return std::string(base) + "[" + std::to_string(i) + "]";
}

inline std::string Child(std::string_view base, std::string_view key) {
  return base.empty() ? std::string(key)
                      : std::string(base) + "." + std::string(key);
}

// Document text quoted into a message, cut short: it may be arbitrary bytes.
inline std::string Quote(std::string_view s) {
  constexpr size_t kMax = 64;
  return "\"" + std::string(s.substr(0, kMax)) +
         (s.size() > kMax ? "...\"" : "\"");
}

inline void Add(Errors& errors, std::string path, std::string message) {
  errors.push_back({std::move(path), std::move(message)});
}

}  // namespace ax::snapshot_doc
