// Maps what a geo database says about a client's subdivision to the ISO 3166-2
// code Regions match on ("CN-GD"): GeoIP2 stores the part after the dash
// ("GD"), the flat dbip schema a name ("Guangdong"). Built-in rows (every ISO
// code and name plus curated aliases) can be extended by an override file.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

namespace ax::dns {

class SubdivisionTable {
 public:
  // The built-in rows, parsed once and shared.
  static std::shared_ptr<const SubdivisionTable> Builtin();

  // The built-in rows plus `csv` ("CODE,NAME" lines; '#' comments and blank
  // lines skipped), whose rows win over built-in ones with the same name.
  // Errors name `source` and the line.
  static std::shared_ptr<const SubdivisionTable> WithOverrides(
      std::string csv, std::string_view source, std::string* error);
  // Same, reading the override rows from the file at `path`.
  static std::shared_ptr<const SubdivisionTable> LoadWithOverrides(
      const std::string& path, std::string* error);

  // `value` as a full code ("CN-GD"), a code suffix ("GD") or a name
  // ("Guangdong"), all ASCII case-insensitive, within `country` ("CN") -> the
  // code, pointing into this table. A full code of `country` that the table
  // does not know is returned as given (a newer ISO code). "" when unknown.
  // Never allocates.
  std::string_view ToIso(std::string_view country,
                         std::string_view value) const;

  size_t name_count() const { return by_name_.size(); }
  size_t code_count() const { return by_code_.size(); }

 private:
  // Both views point into kBuiltinSubdivisionRows or `owned_`.
  struct Key {
    std::string_view country;
    std::string_view text;  // a code suffix or a name
  };
  struct KeyHash {
    size_t operator()(const Key& key) const;
  };
  struct KeyEqual {
    bool operator()(const Key& a, const Key& b) const;
  };
  using Index = std::unordered_map<Key, std::string_view, KeyHash, KeyEqual>;

  SubdivisionTable() = default;
  // Adds every row of `rows` (which must outlive this table); false with
  // `error` set at the first bad line.
  bool AddRows(std::string_view rows, std::string_view source,
               std::string* error);

  std::string owned_;  // override rows the indexes point into
  Index by_code_;      // (country, suffix) -> code
  Index by_name_;      // (country, name) -> code
};

}  // namespace ax::dns
