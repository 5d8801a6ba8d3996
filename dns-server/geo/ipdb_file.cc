// IpdbFile: metadata parsing, validation of every node and record, and
// lookups. The format and its references are in ipdb_file.h; the walk is in
// ipdb_walk.cc.
#include "geo/ipdb_file.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>

namespace ax::dns {
namespace {

using Json = nlohmann::json;

uint32_t ReadBe32(const uint8_t* p) {
  return uint32_t{p[0]} << 24 | uint32_t{p[1]} << 16 | uint32_t{p[2]} << 8 |
         p[3];
}

uint16_t ReadBe16(const uint8_t* p) {
  return static_cast<uint16_t>(p[0] << 8 | p[1]);
}

// An unsigned integer member of `object`; nullopt when absent or another
// type (read without exceptions: the metadata is untrusted input).
std::optional<uint64_t> Unsigned(const Json& object, const char* key) {
  const auto it = object.find(key);
  if (it == object.end() || !it->is_number_unsigned()) return std::nullopt;
  return it->get<uint64_t>();
}

}  // namespace

std::shared_ptr<const IpdbFile> IpdbFile::Open(const std::string& path,
                                               std::string* error,
                                               std::string_view language,
                                               const std::string& copy_dir) {
  std::optional<MappedFile> file = MappedFile::Open(path, error, copy_dir);
  if (!file) return nullptr;
  std::shared_ptr<IpdbFile> db(new IpdbFile(path, std::move(*file)));
  const std::string problem = db->Parse(language);
  if (!problem.empty()) {
    if (error != nullptr) *error = "geo database " + path + ": " + problem;
    return nullptr;
  }
  return db;
}

std::string IpdbFile::Parse(std::string_view language) {
  const std::span<const uint8_t> bytes = file_.bytes();
  const std::string size = std::to_string(bytes.size());
  if (bytes.size() < 4) {
    return "truncated: " + size + " bytes, no ipdb metadata length";
  }
  const uint64_t meta_length = ReadBe32(bytes.data());
  if (4 + meta_length > bytes.size()) {
    return "metadata length " + std::to_string(meta_length) +
           " runs past the end of the file (" + size + " bytes)";
  }
  const Json meta =
      Json::parse(bytes.data() + 4, bytes.data() + 4 + meta_length, nullptr,
                  /*allow_exceptions=*/false);
  if (meta.is_discarded() || !meta.is_object()) {
    return "metadata is not a JSON object";
  }
  const auto fields = meta.find("fields");
  if (fields == meta.end() || !fields->is_array() || fields->empty()) {
    return "metadata has no \"fields\" list";
  }
  for (const Json& name : *fields) {
    if (!name.is_string()) return "metadata \"fields\" must be strings";
    field_names_.push_back(name.get<std::string>());
  }
  const auto languages = meta.find("languages");
  if (languages == meta.end() || !languages->is_object() ||
      languages->empty()) {
    return "metadata has no \"languages\"";
  }
  const std::optional<uint64_t> offset =
      Unsigned(*languages, std::string(language).c_str());
  if (!offset) {
    std::string have;
    for (const auto& [name, value] : languages->items()) {
      have += (have.empty() ? "" : ", ") + name;
    }
    return "no language \"" + std::string(language) +
           "\" with a field offset in the metadata (it has " + have + ")";
  }
  language_offset_ = *offset;
  const std::optional<uint64_t> node_count = Unsigned(meta, "node_count");
  const std::optional<uint64_t> total_size = Unsigned(meta, "total_size");
  const std::optional<uint64_t> ip_version = Unsigned(meta, "ip_version");
  if (!node_count || *node_count == 0 || *node_count > UINT32_MAX) {
    return "metadata node_count missing or out of range";
  }
  if (!total_size) return "metadata has no total_size";
  if (!ip_version || *ip_version == 0 || (*ip_version & ~uint64_t{3}) != 0) {
    return "metadata ip_version must be 1 (IPv4), 2 (IPv6) or 3 (both)";
  }
  if (const auto build = meta.find("build"); build != meta.end()) {
    if (!build->is_number_integer()) return "metadata build is no integer";
    build_epoch_ = build->get<int64_t>();
  }
  node_count_ = static_cast<uint32_t>(*node_count);
  ip_version_ = static_cast<uint32_t>(*ip_version);
  // The reference readers insist on the exact size too.
  if (4 + meta_length + *total_size != bytes.size()) {
    return "total_size " + std::to_string(*total_size) +
           " does not match the file: 4 + " + std::to_string(meta_length) +
           " + total_size bytes expected, the file has " + size;
  }
  data_ = bytes.subspan(4 + meta_length);
  if (uint64_t{node_count_} * 8 > data_.size()) {
    return "node_count " + std::to_string(node_count_) + " needs " +
           std::to_string(uint64_t{node_count_} * 8) +
           " bytes of nodes, more than total_size " +
           std::to_string(data_.size());
  }
  std::string problem = ValidateTree();
  if (!problem.empty()) return problem;
  // Official readers compute the start of IPv4 once, as here; metowolf's
  // reader trusts "v4node" when present: they must agree.
  uint32_t node = 0;
  for (int depth = 0; depth < 96 && node < node_count_; ++depth) {
    node = Child(node, depth >= 80 ? 1 : 0);
  }
  v4_start_ = node;
  if (Serves(IpFamily::kV4) && meta.contains("v4node") &&
      Unsigned(meta, "v4node") != node) {
    return "metadata v4node is not the node at ::ffff:0:0/96 (" +
           std::to_string(node) + ")";
  }
  return "";
}

std::string IpdbFile::ValidateTree() const {
  // Child indices below node_count are in bounds by the size check; records
  // are checked once each, as most are shared by many networks.
  const uint64_t records_start = uint64_t{node_count_} * 8;
  std::vector<bool> checked(data_.size() - records_start);
  for (uint32_t node = 0; node < node_count_; ++node) {
    for (int bit = 0; bit < 2; ++bit) {
      const uint32_t child = Child(node, bit);
      if (child <= node_count_) continue;
      const uint64_t offset = child - node_count_ + records_start;
      if (offset < data_.size() && checked[offset - records_start]) continue;
      IpdbRecord record;
      if (const char* problem = Resolve(child, record)) {
        return "node " + std::to_string(node) + " bit " + std::to_string(bit) +
               ": its record at data offset " + std::to_string(offset) + " " +
               problem + " (total_size " + std::to_string(data_.size()) + ")";
      }
      checked[offset - records_start] = true;
    }
  }
  return "";
}

uint32_t IpdbFile::Child(uint32_t node, int bit) const {
  return ReadBe32(data_.data() + size_t{node} * 8 + size_t(bit) * 4);
}

const char* IpdbFile::Resolve(uint32_t node, IpdbRecord& record) const {
  const uint64_t offset = node - node_count_ + uint64_t{node_count_} * 8;
  if (offset + 2 > data_.size()) return "lies past the end of the data";
  const size_t length = ReadBe16(data_.data() + offset);
  if (offset + 2 + length > data_.size()) {
    return "runs past the end of the data";
  }
  std::string_view text(
      reinterpret_cast<const char*>(data_.data()) + offset + 2, length);
  constexpr const char* kShort = "has fewer fields than the metadata lists";
  for (size_t i = 0; i < language_offset_; ++i) {  // other languages first
    const size_t tab = text.find('\t');
    if (tab == std::string_view::npos) return kShort;
    text.remove_prefix(tab + 1);
  }
  size_t end = 0;  // just past our language's last field
  for (size_t i = 0; i < field_names_.size(); ++i) {
    if (i > 0) {
      if (end == text.size()) return kShort;
      ++end;  // the tab
    }
    end = std::min(text.find('\t', end), text.size());
  }
  record.found = true;
  record.offset = offset;
  record.fields = text.substr(0, end);
  return nullptr;
}

bool IpdbFile::Serves(IpFamily family) const {
  return (ip_version_ & (family == IpFamily::kV4 ? 1u : 2u)) != 0;
}

int IpdbFile::FieldIndex(std::string_view name) const {
  const auto it = std::find(field_names_.begin(), field_names_.end(), name);
  return it == field_names_.end() ? -1
                                  : static_cast<int>(it - field_names_.begin());
}

bool IpdbFile::Lookup(const IpAddress& ip, IpdbRecord& record) const {
  record = IpdbRecord{};
  if (!Serves(ip.family)) return false;
  uint32_t node = ip.family == IpFamily::kV4 ? v4_start_ : 0;
  int depth = 0;
  for (; depth < ip.BitLength() && node < node_count_; ++depth) {
    node = Child(node, ip.Bit(depth) ? 1 : 0);
  }
  // A tree deeper than an address is broken (ipdb-go answers "not found").
  if (node < node_count_) return false;
  record.prefix_length = depth;
  if (node == node_count_) return true;
  return Resolve(node, record) == nullptr;
}

std::string_view IpdbFile::Field(const IpdbRecord& record, int index) {
  if (!record.found || index < 0) return {};
  std::string_view rest = record.fields;
  for (int i = 0; i < index; ++i) {
    const size_t tab = rest.find('\t');
    if (tab == std::string_view::npos) return {};
    rest.remove_prefix(tab + 1);
  }
  return rest.substr(0, rest.find('\t'));
}

}  // namespace ax::dns
