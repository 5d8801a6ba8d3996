// FileSource against real files and inotify: a plain rewrite, a rename over,
// a Kubernetes ConfigMap-style `..data` symlink swap, a broken write that
// keeps the last good snapshot, a file that appears after start, gzip files
// and a whole route-table ConfigMap volume whose key turns from text to gzip.
#include "server/file_source.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "ax/gzip.h"
#include "server_test_support.h"

namespace ax::dns {
namespace {

using namespace std::chrono_literals;
using testing::MakeSnapshotJson;
using testing::TempDir;
using testing::WaitFor;
using testing::WriteFile;
using testing::WriteFileAtomically;

constexpr FileSourceOptions kFast{.debounce = 20ms, .tick = 100ms};

uint64_t ServedVersion(const SnapshotStore& store) {
  const auto state = store.Current();
  return state ? state->snapshot().version : 0;
}

TEST(FileSourceTest, LoadsAtStartAndFollowsRewrites) {
  TempDir dir;
  const auto file = dir / "snapshot.json";
  WriteFile(file, MakeSnapshotJson(1));
  SnapshotStore store({});
  FileSource source(file, &store, kFast);
  std::string error;
  ASSERT_TRUE(source.Start(&error)) << error;
  EXPECT_EQ(ServedVersion(store), 1u);

  WriteFile(file, MakeSnapshotJson(2, 1));  // in place
  EXPECT_TRUE(WaitFor([&] { return ServedVersion(store) == 2; }));
  WriteFileAtomically(file, MakeSnapshotJson(3, 2));  // rename over
  EXPECT_TRUE(WaitFor([&] { return ServedVersion(store) == 3; }));
  source.Stop();
}

// Kubelet's layout: FILE -> ..data/FILE, ..data -> ..<timestamp>/; an update
// writes a new timestamped directory and renames a fresh symlink over ..data.
TEST(FileSourceTest, FollowsConfigMapSymlinkSwap) {
  TempDir dir;
  namespace fs = std::filesystem;
  fs::create_directory(dir / "..2024_01_01_00_00_00.1");
  WriteFile(dir / "..2024_01_01_00_00_00.1" / "snapshot.json",
            MakeSnapshotJson(1));
  fs::create_directory_symlink("..2024_01_01_00_00_00.1", dir / "..data");
  fs::create_symlink("..data/snapshot.json", dir / "snapshot.json");

  SnapshotStore store({});
  FileSource source(dir / "snapshot.json", &store, kFast);
  std::string error;
  ASSERT_TRUE(source.Start(&error)) << error;
  EXPECT_EQ(ServedVersion(store), 1u);

  fs::create_directory(dir / "..2024_01_01_00_01_00.2");
  WriteFile(dir / "..2024_01_01_00_01_00.2" / "snapshot.json",
            MakeSnapshotJson(2, 1));
  fs::create_directory_symlink("..2024_01_01_00_01_00.2", dir / "..data_tmp");
  fs::rename(dir / "..data_tmp", dir / "..data");  // the atomic swap
  fs::remove_all(dir / "..2024_01_01_00_00_00.1");
  EXPECT_TRUE(WaitFor([&] { return ServedVersion(store) == 2; }));
  EXPECT_EQ(store.Status().errors, 0u);
  source.Stop();
}

// Writes a kubelet-style volume revision `rev` holding `files` and swaps
// ..data to it; the key symlinks are made once per name.
void SwapVolume(const std::filesystem::path& dir, int rev,
                const std::map<std::string, std::string>& files) {
  namespace fs = std::filesystem;
  const std::string name = "..rev" + std::to_string(rev);
  fs::create_directory(dir / name);
  for (const auto& [key, bytes] : files) {
    WriteFile(dir / name / key, bytes);
    if (!fs::is_symlink(dir / key))
      fs::create_symlink("..data/" + key, dir / key);
  }
  // Keys the new revision no longer has: kubelet removes their links.
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string key = entry.path().filename();
    if (!key.starts_with("..") && !files.count(key)) fs::remove(entry.path());
  }
  fs::create_directory_symlink(name, dir / "..data_tmp");
  fs::rename(dir / "..data_tmp", dir / "..data");
}

TEST(FileSourceTest, ReadsARouteTableVolumeAsItTurnsToGzip) {
  TempDir dir;
  SwapVolume(dir.path(), 1, {{"snapshot.json", MakeSnapshotJson(1)}});
  SnapshotStore store({});
  FileSource source(dir.path(), &store, kFast);
  std::string error;
  ASSERT_TRUE(source.Start(&error)) << error;
  EXPECT_EQ(ServedVersion(store), 1u);

  // The operator gzips a document once it outgrows the threshold: the key
  // changes, the directory stays.
  SwapVolume(dir.path(), 2,
             {{"snapshot.json.gz", GzipCompress(MakeSnapshotJson(2, 1))}});
  EXPECT_TRUE(WaitFor([&] { return ServedVersion(store) == 2; }));
  EXPECT_EQ(store.Status().errors, 0u);

  // Corrupt gzip: reported, version 2 keeps serving.
  SwapVolume(dir.path(), 3, {{"snapshot.json.gz", "\x1f\x8b not really"}});
  EXPECT_TRUE(WaitFor([&] { return store.Status().errors == 1; }));
  EXPECT_EQ(ServedVersion(store), 2u);
  EXPECT_NE(store.Status().last_error.find("snapshot.json.gz"),
            std::string::npos)
      << store.Status().last_error;
  source.Stop();
}

TEST(FileSourceTest, VolumeWithBothOrNeitherKeyIsAnError) {
  TempDir dir;
  SnapshotStore store({});
  FileSource source(dir.path(), &store, kFast);
  std::string error;
  EXPECT_FALSE(source.Start(&error));
  EXPECT_NE(error.find("holds neither snapshot.json nor snapshot.json.gz"),
            std::string::npos)
      << error;
  SwapVolume(dir.path(), 1,
             {{"snapshot.json", MakeSnapshotJson(1)},
              {"snapshot.json.gz", GzipCompress(MakeSnapshotJson(1))}});
  EXPECT_TRUE(WaitFor([&] {
    return store.Status().last_error.find("holds both") != std::string::npos;
  }));
  EXPECT_EQ(store.Current(), nullptr);
  source.Stop();
}

TEST(FileSourceTest, GzipFileByName) {
  TempDir dir;
  const auto file = dir / "table.json.gz";
  WriteFile(file, GzipCompress(MakeSnapshotJson(4)));
  SnapshotStore store({});
  FileSource source(file, &store, kFast);
  std::string error;
  ASSERT_TRUE(source.Start(&error)) << error;
  EXPECT_EQ(ServedVersion(store), 4u);
  source.Stop();
}

TEST(FileSourceTest, BrokenWriteKeepsLastGood) {
  TempDir dir;
  const auto file = dir / "snapshot.json";
  WriteFile(file, MakeSnapshotJson(1));
  SnapshotStore store({});
  FileSource source(file, &store, kFast);
  std::string error;
  ASSERT_TRUE(source.Start(&error)) << error;

  WriteFileAtomically(file, "{\"formatVersion\":1,");
  EXPECT_TRUE(WaitFor([&] { return store.Status().errors == 1; }));
  EXPECT_EQ(ServedVersion(store), 1u);
  // The same broken bytes on the next checks are not reported again.
  const uint64_t checks = source.Checks();
  ASSERT_TRUE(WaitFor([&] { return source.Checks() >= checks + 3; }));
  EXPECT_EQ(store.Status().errors, 1u);

  WriteFileAtomically(file, MakeSnapshotJson(2, 1));
  EXPECT_TRUE(WaitFor([&] { return ServedVersion(store) == 2; }));
  source.Stop();
}

TEST(FileSourceTest, FileAppearingLaterIsLoaded) {
  TempDir dir;
  const auto file = dir / "snapshot.json";
  SnapshotStore store({});
  FileSource source(file, &store, kFast);
  std::string error;
  EXPECT_FALSE(source.Start(&error));
  EXPECT_NE(error.find("cannot read"), std::string::npos) << error;
  EXPECT_EQ(store.Current(), nullptr);
  EXPECT_EQ(store.Status().errors, 1u);

  WriteFileAtomically(file, MakeSnapshotJson(1));
  EXPECT_TRUE(WaitFor([&] { return ServedVersion(store) == 1; }));
  source.Stop();
}

}  // namespace
}  // namespace ax::dns
