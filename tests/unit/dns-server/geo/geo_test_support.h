// Shared by the geo tests: where the generated test MMDBs and the real data
// live, address parsing, and a scratch directory for copied or broken files.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <random>
#include <string>

#include "ax/ip.h"
#include "geo/mmdb_file.h"

namespace ax::dns::testing {

// A database generated from tests/testdata/geo/test_mmdbs.json at build time.
inline std::string TestDb(const std::string& name) {
  return std::string(AX_GEO_TEST_MMDB_DIR) + "/" + name;
}

// The real data directory scripts/setup.sh fills; env AX_GEO_DIR wins.
inline std::string RealGeoDir() {
  const char* env = std::getenv("AX_GEO_DIR");
  return env != nullptr && env[0] != '\0' ? env : AX_GEO_DIR_DEFAULT;
}

inline IpAddress A(const char* text) { return ParseIp(text).value(); }

// The last address of `ip`'s block of prefix `length`.
inline IpAddress LastAddress(IpAddress ip, int length) {
  return ax::LastAddress(IpPrefix{ip, length});
}

// A seeded random address: IPv4 for even `i`, else IPv6 in 2000::/4 (assigned
// space, where the databases say something).
inline IpAddress RandomAddress(std::mt19937_64& rng, int i) {
  IpAddress ip;
  ip.family = i % 2 == 0 ? IpFamily::kV4 : IpFamily::kV6;
  for (uint8_t& byte : ip.bytes) byte = static_cast<uint8_t>(rng());
  if (ip.family == IpFamily::kV4) {
    std::fill(ip.bytes.begin() + 4, ip.bytes.end(), 0);
  } else {
    ip.bytes[0] = 0x20 | (ip.bytes[0] & 0x0f);
  }
  return ip;
}

inline std::shared_ptr<const MmdbFile> MustOpen(const std::string& path) {
  std::string error;
  std::shared_ptr<const MmdbFile> file = MmdbFile::Open(path, &error);
  EXPECT_NE(file, nullptr) << error;
  return file;
}

// A fresh directory under the system temp dir, removed with the object.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "ax-geo-XXXXXX").string();
    path_ = ::mkdtemp(pattern.data());
  }
  ~ScratchDir() { std::filesystem::remove_all(path_); }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  std::string File(const std::string& name) const {
    return (path_ / name).string();
  }

 private:
  std::filesystem::path path_;
};

}  // namespace ax::dns::testing
