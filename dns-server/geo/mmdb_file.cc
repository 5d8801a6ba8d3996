// MmdbFile: libmaxminddb open/validate/lookup/get behind an RAII handle.
#include "geo/mmdb_file.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstring>
#include <optional>

#include "geo/private_copy.h"

namespace ax::dns {
namespace {

// Probed on open: addresses spread over the space, so that a tree or data
// section broken anywhere near the common paths fails validation instead of
// the first queries.
constexpr const char* kProbeAddresses[] = {
    "1.1.1.1",      "8.8.8.8",   "14.215.177.38",        "113.108.1.1",
    "202.106.0.20", "223.5.5.5", "2001:4860:4860::8888", "240e::1",
};

// MMDB_entry_s is taken by non-const pointer by the C API even for reads.
MMDB_entry_s Copy(const MMDB_entry_s& entry) { return entry; }

}  // namespace

std::shared_ptr<const MmdbFile> MmdbFile::Open(const std::string& path,
                                               std::string* error,
                                               const std::string& copy_dir) {
  std::string copy_error;
  const std::optional<PrivateCopy> copy =
      copy_dir.empty() ? std::optional<PrivateCopy>()
                       : PrivateCopy::Make(path, copy_dir, &copy_error);
  if (!copy_dir.empty() && !copy) {
    if (error) *error = std::move(copy_error);
    return nullptr;
  }
  std::shared_ptr<MmdbFile> file(new MmdbFile(path));
  // The copy is unlinked when `copy` goes out of scope; the mapping keeps it.
  int status = MMDB_open(copy ? copy->path().c_str() : path.c_str(),
                         MMDB_MODE_MMAP, &file->mmdb_);
  if (status != MMDB_SUCCESS) {
    // MMDB_open released everything itself; the destructor must not close.
    file->mmdb_ = MMDB_s{};
    if (error) {
      *error = "geo database " + path + ": " + MMDB_strerror(status);
      if (status == MMDB_IO_ERROR)
        *error += std::string(": ") + strerror(errno);
    }
    return nullptr;
  }
  std::string problem = file->Validate();
  if (!problem.empty()) {
    if (error) *error = "geo database " + path + ": " + problem;
    return nullptr;
  }
  return file;
}

MmdbFile::~MmdbFile() {
  if (mmdb_.file_content != nullptr) MMDB_close(&mmdb_);
}

std::string MmdbFile::Validate() const {
  const MMDB_metadata_s& meta = mmdb_.metadata;
  if (meta.binary_format_major_version != 2) {
    return "unsupported binary format version " +
           std::to_string(meta.binary_format_major_version);
  }
  if (meta.ip_version != 4 && meta.ip_version != 6) {
    return "bad ip_version " + std::to_string(meta.ip_version);
  }
  if (meta.record_size != 24 && meta.record_size != 28 &&
      meta.record_size != 32) {
    return "bad record_size " + std::to_string(meta.record_size);
  }
  if (meta.node_count == 0) return "empty search tree (node_count 0)";
  if (meta.database_type == nullptr || meta.database_type[0] == '\0') {
    return "metadata has no database_type";
  }
  for (const char* text : kProbeAddresses) {
    std::optional<IpAddress> ip = ParseIp(text);
    if (ip->family == IpFamily::kV6 && meta.ip_version == 4) continue;
    MmdbRecord record;
    if (!Lookup(*ip, record)) {
      return std::string("search tree lookup of ") + text + " failed";
    }
    if (!record.found) continue;
    MMDB_entry_s entry = Copy(record.entry);
    MMDB_entry_data_list_s* list = nullptr;
    int status = MMDB_get_entry_data_list(&entry, &list);
    MMDB_free_entry_data_list(list);
    if (status != MMDB_SUCCESS) {
      return std::string("record of ") + text +
             " does not decode: " + MMDB_strerror(status);
    }
  }
  return "";
}

bool MmdbFile::Lookup(const IpAddress& ip, MmdbRecord& record) const {
  sockaddr_storage storage{};
  if (ip.family == IpFamily::kV4) {
    auto* sin = reinterpret_cast<sockaddr_in*>(&storage);
    sin->sin_family = AF_INET;
    std::memcpy(&sin->sin_addr, ip.bytes.data(), 4);
  } else {
    auto* sin6 = reinterpret_cast<sockaddr_in6*>(&storage);
    sin6->sin6_family = AF_INET6;
    std::memcpy(&sin6->sin6_addr, ip.bytes.data(), 16);
  }
  int mmdb_error = MMDB_SUCCESS;
  MMDB_lookup_result_s result = MMDB_lookup_sockaddr(
      &mmdb_, reinterpret_cast<const sockaddr*>(&storage), &mmdb_error);
  if (mmdb_error != MMDB_SUCCESS) {
    record = MmdbRecord{};
    return false;
  }
  record.found = result.found_entry;
  record.entry = result.entry;
  int netmask = result.netmask;
  // libmaxminddb counts from the root of the 128-bit tree; IPv4 lives under
  // ::/96 there.
  if (ip.family == IpFamily::kV4 && mmdb_.metadata.ip_version == 6) {
    netmask -= 96;
  }
  record.prefix_length = std::clamp(netmask, 0, ip.BitLength());
  return true;
}

MmdbField MmdbFile::Get(const MmdbRecord& record, const char* const* path,
                        MMDB_entry_data_s& data) const {
  if (!record.found) return MmdbField::kMissing;
  MMDB_entry_s entry = Copy(record.entry);
  int status = MMDB_aget_value(&entry, &data, path);
  switch (status) {
    case MMDB_SUCCESS:
      return data.has_data ? MmdbField::kFound : MmdbField::kMissing;
    case MMDB_LOOKUP_PATH_DOES_NOT_MATCH_DATA_ERROR:
    case MMDB_INVALID_LOOKUP_PATH_ERROR:
      return MmdbField::kMissing;
    default:
      return MmdbField::kCorrupt;
  }
}

MmdbField MmdbFile::GetString(const MmdbRecord& record, const char* const* path,
                              std::string_view& out) const {
  MMDB_entry_data_s data{};
  MmdbField field = Get(record, path, data);
  if (field != MmdbField::kFound) return field;
  if (data.type != MMDB_DATA_TYPE_UTF8_STRING) return MmdbField::kMissing;
  out = std::string_view(data.utf8_string, data.data_size);
  return MmdbField::kFound;
}

MmdbField MmdbFile::GetDouble(const MmdbRecord& record, const char* const* path,
                              double& out) const {
  MMDB_entry_data_s data{};
  MmdbField field = Get(record, path, data);
  if (field != MmdbField::kFound) return field;
  switch (data.type) {
    case MMDB_DATA_TYPE_DOUBLE:
      out = data.double_value;
      return MmdbField::kFound;
    case MMDB_DATA_TYPE_FLOAT:
      out = data.float_value;
      return MmdbField::kFound;
    default:
      return MmdbField::kMissing;
  }
}

MmdbField MmdbFile::GetUint32(const MmdbRecord& record, const char* const* path,
                              uint32_t& out) const {
  MMDB_entry_data_s data{};
  MmdbField field = Get(record, path, data);
  if (field != MmdbField::kFound) return field;
  switch (data.type) {
    case MMDB_DATA_TYPE_UINT16:
      out = data.uint16;
      return MmdbField::kFound;
    case MMDB_DATA_TYPE_UINT32:
      out = data.uint32;
      return MmdbField::kFound;
    case MMDB_DATA_TYPE_INT32:
      if (data.int32 < 0) return MmdbField::kMissing;
      out = static_cast<uint32_t>(data.int32);
      return MmdbField::kFound;
    case MMDB_DATA_TYPE_UINT64:
      if (data.uint64 > UINT32_MAX) return MmdbField::kMissing;
      out = static_cast<uint32_t>(data.uint64);
      return MmdbField::kFound;
    default:
      return MmdbField::kMissing;
  }
}

}  // namespace ax::dns
