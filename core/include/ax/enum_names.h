// Enum <-> name tables: one constexpr table per enum serves both directions, so
// a name is written down once. Used for every enum that appears in manifests,
// snapshots or explanations.
#pragma once

#include <array>
#include <optional>
#include <string_view>
#include <utility>

namespace ax {

template <typename E, size_t N>
using NameTable = std::array<std::pair<E, const char*>, N>;

template <typename E, size_t N>
constexpr const char* NameOf(const NameTable<E, N>& table, E value) {
  for (const auto& [v, name] : table) {
    if (v == value) return name;
  }
  return "?";
}

template <typename E, size_t N>
constexpr std::optional<E> ValueOf(const NameTable<E, N>& table,
                                   std::string_view name) {
  for (const auto& [v, n] : table) {
    if (name == n) return v;
  }
  return std::nullopt;
}

}  // namespace ax
