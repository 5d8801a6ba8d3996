// Shared by the geo tests: where the generated test MMDBs and the real data
// live, address parsing, and a scratch directory for copied or broken files.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
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
