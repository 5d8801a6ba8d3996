// SubdivisionTable: CSV rows -> two case-insensitive indexes over string views.
#include "geo/subdivision_table.h"

#include <fstream>
#include <sstream>

#include "geo/subdivision_table_data.h"

namespace ax::dns {
namespace {

char Lower(char c) { return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c; }

bool EqualFold(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (Lower(a[i]) != Lower(b[i])) return false;
  }
  return true;
}

// "CN-GD": two letters, a dash, 1-3 letters or digits.
bool IsIsoCode(std::string_view code) {
  if (code.size() < 4 || code.size() > 6 || code[2] != '-') return false;
  for (size_t i = 0; i < code.size(); ++i) {
    char c = code[i];
    bool letter = c >= 'A' && c <= 'Z';
    bool digit = c >= '0' && c <= '9';
    if (i < 2 ? !letter : i > 2 && !letter && !digit) return false;
  }
  return true;
}

}  // namespace

size_t SubdivisionTable::KeyHash::operator()(const Key& key) const {
  // FNV-1a over the lower-cased bytes, the country separated by a byte no
  // name contains.
  uint64_t h = 14695981039346656037ull;
  auto mix = [&h](char c) {
    h = (h ^ static_cast<uint8_t>(c)) * 1099511628211ull;
  };
  for (char c : key.country) mix(Lower(c));
  mix('\0');
  for (char c : key.text) mix(Lower(c));
  return static_cast<size_t>(h);
}

bool SubdivisionTable::KeyEqual::operator()(const Key& a, const Key& b) const {
  return EqualFold(a.country, b.country) && EqualFold(a.text, b.text);
}

std::shared_ptr<const SubdivisionTable> SubdivisionTable::Builtin() {
  static const std::shared_ptr<const SubdivisionTable> table = [] {
    std::shared_ptr<SubdivisionTable> t(new SubdivisionTable());
    std::string error;
    // The generator only writes well-formed rows; a test checks they load.
    t->AddRows(kBuiltinSubdivisionRows, "built-in subdivision table", &error);
    return t;
  }();
  return table;
}

std::shared_ptr<const SubdivisionTable> SubdivisionTable::WithOverrides(
    std::string csv, std::string_view source, std::string* error) {
  std::shared_ptr<SubdivisionTable> t(new SubdivisionTable(*Builtin()));
  // The object lives behind the pointer from here on, so views into owned_
  // stay put.
  t->owned_ = std::move(csv);
  if (!t->AddRows(t->owned_, source, error)) return nullptr;
  return t;
}

std::shared_ptr<const SubdivisionTable> SubdivisionTable::LoadWithOverrides(
    const std::string& path, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (error) *error = "subdivision table " + path + ": cannot read";
    return nullptr;
  }
  std::ostringstream text;
  text << in.rdbuf();
  return WithOverrides(text.str(), "subdivision table " + path, error);
}

bool SubdivisionTable::AddRows(std::string_view rows, std::string_view source,
                               std::string* error) {
  size_t line_no = 0;
  while (!rows.empty()) {
    size_t end = rows.find('\n');
    std::string_view line = rows.substr(0, end);
    rows = end == std::string_view::npos ? "" : rows.substr(end + 1);
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line.front() == '#') continue;
    size_t comma = line.find(',');
    std::string_view code = line.substr(0, comma);
    if (comma == std::string_view::npos || !IsIsoCode(code)) {
      if (error) {
        *error =
            std::string(source) + ":" + std::to_string(line_no) +
            ": expected CODE,NAME with an ISO 3166-2 code like CN-GD, got \"" +
            std::string(line) + "\"";
      }
      return false;
    }
    std::string_view country = code.substr(0, 2);
    std::string_view name = line.substr(comma + 1);
    by_code_.insert_or_assign(Key{country, code.substr(3)}, code);
    if (!name.empty()) by_name_.insert_or_assign(Key{country, name}, code);
  }
  return true;
}

std::string_view SubdivisionTable::ToIso(std::string_view country,
                                         std::string_view value) const {
  if (value.empty() || country.empty()) return {};
  std::string_view suffix = value;
  bool full = value.size() > country.size() + 1 &&
              EqualFold(value.substr(0, country.size()), country) &&
              value[country.size()] == '-';
  if (full) suffix = value.substr(country.size() + 1);
  if (auto it = by_code_.find(Key{country, suffix}); it != by_code_.end()) {
    return it->second;
  }
  if (full) return value;
  if (auto it = by_name_.find(Key{country, value}); it != by_name_.end()) {
    return it->second;
  }
  return {};
}

}  // namespace ax::dns
