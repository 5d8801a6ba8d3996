// The builder at scale and as a producer of documents: 1,000 nodes x 200
// regions x 50 domains stays valid and under 1 MiB; the same input gives the
// same bytes whatever its order; a built snapshot answers exactly like the
// document parsed back from it.
#include "ax/build_snapshot.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "ax/bounded_json.h"
#include "ax/decide.h"
#include "ax/snapshot_json.h"
#include "ax/snapshot_limits.h"
#include "large_world.h"

namespace ax {
namespace {

using ::ax::testing::MakeStatus;
using ::ax::testing::MakeWorld;

TEST(BuildSnapshotTest, LargeWorldIsValidAndUnderOneMebibyte) {
  const World w = MakeWorld(1000, 200, 50, 5);
  const Snapshot s =
      BuildSnapshot(w, MakeStatus(w), nullptr, {.now_ms = 5, .version = 9});
  EXPECT_TRUE(ValidateSnapshot(s).empty());
  EXPECT_EQ(s.nodes.size(), 1000u);
  EXPECT_EQ(s.regions.size(), 200u);
  EXPECT_EQ(s.domains.size(), 50u);
  const std::string json = SerializeSnapshot(s);
  RecordProperty("bytes", static_cast<int>(json.size()));
  EXPECT_LT(json.size(), 1u << 20);
  // Routes are shared between domains with the same selector and no
  // rule/canary.
  EXPECT_LT(s.routes.size(), 50u * 201 / 4);
}

// The parse limits leave a large deployment's document far inside them: it
// nests a few levels deep (far from kSnapshotMaxDepth), and holds under a
// quarter of the values.
TEST(BuildSnapshotTest, LargeWorldIsWellInsideTheParseLimits) {
  const World w = MakeWorld(1000, 200, 50, 5);
  const std::string json = SerializeSnapshot(
      BuildSnapshot(w, MakeStatus(w), nullptr, {.now_ms = 5, .version = 9}));
  std::string error;
  EXPECT_TRUE(ParseBoundedJson(
      json, {.max_depth = 6, .max_values = kSnapshotMaxJsonValues / 4}, &error))
      << error;
  size_t depth = 1;
  while (!ParseBoundedJson(json, {.max_depth = depth, .max_values = 1u << 30},
                           &error)) {
    ++depth;
  }
  RecordProperty("depth", static_cast<int>(depth));
  EXPECT_GE(depth, 3u);
  EXPECT_LE(depth * 4, kSnapshotMaxDepth);
}

// What the operator builds is validated before it is published: a world over
// the domains x (regions + 1 + nodes) limit is refused, naming it.
TEST(BuildSnapshotTest, AWorldOverTheCellLimitIsRefused) {
  const World w = MakeWorld(1100, 2, 1000, 2);
  const Snapshot s =
      BuildSnapshot(w, MakeStatus(w), nullptr, {.now_ms = 5, .version = 9});
  const std::vector<SnapshotError> errors = ValidateSnapshot(s);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(
      errors[0].ToString(),
      "1000 domains x (2 regions + 1 + 1100 nodes) = 1103000 cells, over "
      "the limit of 1048576 (the answer counters of every ax-dns worker)");
}

TEST(BuildSnapshotTest, InputOrderDoesNotChangeTheBytes) {
  World w = MakeWorld(60, 12, 5, 4);
  const StatusMap status = MakeStatus(w);
  const std::string a =
      SerializeSnapshot(BuildSnapshot(w, status, nullptr, {}));
  std::mt19937 rng(17);
  std::shuffle(w.nodes.begin(), w.nodes.end(), rng);
  std::shuffle(w.regions.begin(), w.regions.end(), rng);
  std::shuffle(w.domains.begin(), w.domains.end(), rng);
  EXPECT_EQ(a, SerializeSnapshot(BuildSnapshot(w, status, nullptr, {})));
}

TEST(BuildSnapshotTest, BuiltAndParsedSnapshotsAreEqualAndAnswerAlike) {
  const World w = MakeWorld(120, 20, 6, 6);
  const Snapshot built =
      BuildSnapshot(w, MakeStatus(w), nullptr, {.now_ms = 1, .version = 3});
  auto parsed = ParseSnapshot(SerializeSnapshot(built));
  ASSERT_TRUE(parsed.snapshot) << parsed.errors.front().ToString();
  EXPECT_EQ(SerializeSnapshot(*parsed.snapshot), SerializeSnapshot(built));
  for (size_t d = 0; d < built.domains.size(); ++d) {
    Rng r1(5), r2(5);
    for (uint32_t i = 0; i < 2000; ++i) {
      IpAddress ip;
      ip.bytes = {100, static_cast<uint8_t>(i >> 8), static_cast<uint8_t>(i),
                  1};
      const ClientContext c{ClientCohort(ip), true, GeoPoint{10, 20}};
      const uint32_t region = i % (built.regions.size() + 1);
      const Answer x =
          Decide(built, built.domains[d], region, c, IpFamily::kV4, 2, r1);
      const Answer y = Decide(*parsed.snapshot, parsed.snapshot->domains[d],
                              region, c, IpFamily::kV4, 2, r2);
      ASSERT_EQ(x.count, y.count);
      ASSERT_TRUE(std::equal(x.nodes.begin(), x.nodes.begin() + x.count,
                             y.nodes.begin()));
      ASSERT_EQ(x.ttl, y.ttl);
    }
  }
}

}  // namespace
}  // namespace ax
