// Test helper: a fresh temporary directory removed with everything in it when
// the object goes, plus whole-file writes. For suites that need real files
// (kubeconfigs, service-account mounts).
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace ax::testing {

class TempDir {
 public:
  TempDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "ax-test-XXXXXX").string();
    if (::mkdtemp(pattern.data()) != nullptr) path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const {
    return path_ / name;
  }
  // Writes `text` to the file `name` (parents made) and returns its path.
  std::filesystem::path Write(const std::string& name,
                              const std::string& text) const;

 private:
  std::filesystem::path path_;
};

inline void WriteFile(const std::filesystem::path& path,
                      const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

inline std::filesystem::path TempDir::Write(const std::string& name,
                                            const std::string& text) const {
  const std::filesystem::path file = path_ / name;
  WriteFile(file, text);
  return file;
}

}  // namespace ax::testing
