// The route-table ConfigMap codec: text vs gzip encoding, annotations and
// labels, history names, and every decode error a damaged ConfigMap can give.
#include "ax/route_table_configmap.h"

#include <gtest/gtest.h>

#include "ax/build_snapshot.h"
#include "ax/gzip.h"
#include "ax/runtime/base64.h"
#include "ax/snapshot_json.h"
#include "large_world.h"
#include "test_world.h"

namespace ax {
namespace {

using nlohmann::json;

Snapshot SmallSnapshot() {
  testing::TestWorld t;
  t.AddNode("a", "192.0.2.1");
  t.AddRegion("r", {"a"});
  t.AddDomain("www", Strategy::kRegionPriority);
  return t.Build();
}

RouteTableConfigMapOptions Current() {
  return {.name = "ax-route-table",
          .namespace_name = "ax-system",
          .route_table = "ax-route-table",
          .role = RouteTableRole::kCurrent};
}

json Encode(const Snapshot& s, size_t threshold = kDefaultGzipThresholdBytes,
            RouteTableConfigMapOptions options = Current()) {
  return MakeRouteTableConfigMap(
      EncodeRouteTablePayload(SerializeSnapshot(s), threshold), s.version,
      s.content_hash, options);
}

TEST(RouteTableConfigMap, SmallDocumentIsTextWithAnnotationsAndLabels) {
  const Snapshot s = SmallSnapshot();
  const std::string doc = SerializeSnapshot(s);
  const json cm = Encode(s);
  EXPECT_EQ(cm["apiVersion"], "v1");
  EXPECT_EQ(cm["kind"], "ConfigMap");
  EXPECT_EQ(cm["metadata"]["name"], "ax-route-table");
  EXPECT_EQ(cm["metadata"]["namespace"], "ax-system");
  EXPECT_EQ(cm["data"]["snapshot.json"], doc);
  EXPECT_FALSE(cm.contains("binaryData"));
  EXPECT_FALSE(cm.contains("immutable"));
  const json& a = cm["metadata"]["annotations"];
  EXPECT_EQ(a["gslb.ax.io/snapshot-version"], "1");
  EXPECT_EQ(a["gslb.ax.io/content-hash"], s.content_hash);
  EXPECT_EQ(a["gslb.ax.io/snapshot-bytes"], std::to_string(doc.size()));
  const json& l = cm["metadata"]["labels"];
  EXPECT_EQ(l["app.kubernetes.io/part-of"], "ax");
  EXPECT_EQ(l["gslb.ax.io/route-table"], "ax-route-table");
  EXPECT_EQ(l["gslb.ax.io/route-table-role"], "current");

  DecodeRouteTableResult d = DecodeRouteTableConfigMap(cm);
  ASSERT_TRUE(d.table) << d.error->ToString();
  EXPECT_EQ(d.table->snapshot_json, doc);
  EXPECT_EQ(d.table->version, 1u);
  EXPECT_EQ(d.table->content_hash, s.content_hash);
  EXPECT_FALSE(d.table->gzipped);
  EXPECT_EQ(d.table->payload_bytes, doc.size());
}

TEST(RouteTableConfigMap, HistoryCopyIsImmutableAndLabelled) {
  RouteTableConfigMapOptions o = Current();
  o.name = HistoryConfigMapName("ax-route-table", 1);
  o.role = RouteTableRole::kHistory;
  const json cm = Encode(SmallSnapshot(), kDefaultGzipThresholdBytes, o);
  EXPECT_EQ(cm["metadata"]["name"], "ax-route-table-v1");
  EXPECT_EQ(cm["immutable"], true);
  EXPECT_EQ(cm["metadata"]["labels"]["gslb.ax.io/route-table-role"], "history");
  EXPECT_EQ(RouteTableHistorySelector("ax-route-table"),
            "app.kubernetes.io/part-of=ax,gslb.ax.io/route-table=ax-route-"
            "table,gslb.ax.io/route-table-role=history");
}

TEST(RouteTableConfigMap, HistoryNames) {
  EXPECT_EQ(HistoryConfigMapName("rt", 42), "rt-v42");
  EXPECT_EQ(ParseHistoryConfigMapName("rt", "rt-v42"), 42u);
  EXPECT_EQ(ParseHistoryConfigMapName("rt", "rt-v0"), 0u);
  EXPECT_EQ(ParseHistoryConfigMapName("rt", "rt"), std::nullopt);
  EXPECT_EQ(ParseHistoryConfigMapName("rt", "rt-v"), std::nullopt);
  EXPECT_EQ(ParseHistoryConfigMapName("rt", "rt-v007"), std::nullopt);
  EXPECT_EQ(ParseHistoryConfigMapName("rt", "rt-v4x"), std::nullopt);
  EXPECT_EQ(ParseHistoryConfigMapName("rt", "rt-x-v4"), std::nullopt);
  EXPECT_EQ(ParseHistoryConfigMapName("rt", "other-v4"), std::nullopt);
}

TEST(RouteTableConfigMap, OverThresholdIsGzipInBinaryData) {
  const Snapshot s = SmallSnapshot();
  const std::string doc = SerializeSnapshot(s);
  const json cm = Encode(s, /*threshold=*/100);
  EXPECT_FALSE(cm.contains("data"));
  const std::string b64 = cm["binaryData"]["snapshot.json.gz"];
  std::string error;
  const std::string gz = *runtime::Base64Decode(b64, &error);
  EXPECT_EQ(GzipDecompress(gz, 1 << 20, &error), doc);

  ParseRouteTableResult p = ParseRouteTableConfigMap(cm);
  ASSERT_TRUE(p.snapshot) << p.error->ToString();
  EXPECT_EQ(SerializeSnapshot(*p.snapshot), doc);
  EXPECT_TRUE(p.gzipped);
  EXPECT_EQ(p.payload_bytes, gz.size());
  EXPECT_EQ(p.document_bytes, doc.size());
}

// A snapshot well over 1 MiB as JSON fits the 1 MiB ConfigMap limit gzipped,
// and comes back byte for byte.
TEST(RouteTableConfigMap, OverOneMebibyteRawGzipsUnderTheLimit) {
  const World w = testing::MakeWorld(3000, 400, 50, 5);
  const Snapshot s = BuildSnapshot(w, testing::MakeStatus(w), nullptr, {});
  const std::string doc = SerializeSnapshot(s);
  ASSERT_GT(doc.size(), kConfigMapMaxBytes);
  const RouteTablePayload payload =
      EncodeRouteTablePayload(doc, kDefaultGzipThresholdBytes);
  EXPECT_TRUE(payload.gzipped);
  EXPECT_LT(payload.payload_bytes, kConfigMapMaxBytes);
  const json cm =
      MakeRouteTableConfigMap(payload, s.version, s.content_hash, Current());
  ParseRouteTableResult p = ParseRouteTableConfigMap(cm);
  ASSERT_TRUE(p.snapshot) << p.error->ToString();
  EXPECT_EQ(SerializeSnapshot(*p.snapshot), doc);
  EXPECT_EQ(p.snapshot->content_hash, s.content_hash);
}

// Issue 14's scale: 1,000 Nodes x 200 Regions x 50 Domains with 6 vantage
// groups of 3 vantages: the document stays valid and under 1 MiB gzipped.
TEST(RouteTableConfigMap, VantageGroupsAtScaleStayUnderOneMebibyteGzipped) {
  const World w = testing::MakeWorld(1000, 200, 50, 5);
  const std::vector<VantageVerdicts> reports =
      testing::MakeVantageReports(w, 6, 3, 1000);
  const QuorumResult global = DecideQuorum(reports, 2000, {});
  const Snapshot s =
      BuildSnapshot(w, global.ToStatusMap(), nullptr, {.now_ms = 2000},
                    DecideGroupQuorums(w.regions, reports, global, 2000, {}));
  ASSERT_EQ(s.vantage_groups.size(), 6u);
  EXPECT_TRUE(ValidateSnapshot(s).empty());
  const std::string doc = SerializeSnapshot(s);
  const RouteTablePayload payload =
      EncodeRouteTablePayload(doc, kDefaultGzipThresholdBytes);
  RecordProperty("json_bytes", static_cast<int>(doc.size()));
  RecordProperty("payload_bytes", static_cast<int>(payload.payload_bytes));
  EXPECT_LT(payload.payload_bytes, kConfigMapMaxBytes);
}

TEST(RouteTableConfigMap, MountedVolumeFiles) {
  const std::string doc = SerializeSnapshot(SmallSnapshot());
  DecodeRouteTableResult text = DecodeRouteTablePayload("snapshot.json", doc);
  ASSERT_TRUE(text.table);
  EXPECT_EQ(text.table->snapshot_json, doc);
  EXPECT_EQ(text.table->version, std::nullopt);
  DecodeRouteTableResult gz =
      DecodeRouteTablePayload("snapshot.json.gz", GzipCompress(doc));
  ASSERT_TRUE(gz.table);
  EXPECT_EQ(gz.table->snapshot_json, doc);
  EXPECT_TRUE(gz.table->gzipped);
  DecodeRouteTableResult bad = DecodeRouteTablePayload("snapshot.json.gz", doc);
  ASSERT_TRUE(bad.error);
  EXPECT_EQ(bad.error->ToString(),
            "BadGzip: snapshot.json.gz: corrupt gzip data: incorrect header "
            "check");
  EXPECT_EQ(DecodeRouteTablePayload("other.txt", doc).error->code,
            RouteTableErrorCode::kMissingSnapshot);
}

// Each damage gives its own code and a message naming the key.
TEST(RouteTableConfigMap, DecodeErrorsArePrecise) {
  const Snapshot s = SmallSnapshot();
  const json text = Encode(s);
  const json gz = Encode(s, 100);
  auto error = [](const json& cm) {
    ParseRouteTableResult p = ParseRouteTableConfigMap(cm);
    EXPECT_FALSE(p.snapshot);
    return p.error ? p.error->ToString() : std::string("no error");
  };

  EXPECT_EQ(error(json::array()),
            "NotAConfigMap: not an object of kind ConfigMap");
  json missing = text;
  missing.erase("data");
  EXPECT_EQ(error(missing),
            "MissingSnapshot: neither data[\"snapshot.json\"] nor "
            "binaryData[\"snapshot.json.gz\"] is set");
  json both = gz;
  both["data"] = text["data"];
  EXPECT_EQ(error(both),
            "AmbiguousSnapshot: both data[\"snapshot.json\"] and "
            "binaryData[\"snapshot.json.gz\"] are set");
  json bad_b64 = gz;
  bad_b64["binaryData"]["snapshot.json.gz"] = "H4sI*AAA";
  EXPECT_EQ(error(bad_b64),
            "BadBase64: binaryData[\"snapshot.json.gz\"]: invalid character "
            "'*' at offset 4");
  json truncated = gz;
  std::string e;
  const std::string raw = *runtime::Base64Decode(
      gz["binaryData"]["snapshot.json.gz"].get<std::string>(), &e);
  truncated["binaryData"]["snapshot.json.gz"] =
      runtime::Base64Encode(raw.substr(0, raw.size() - 8));
  EXPECT_EQ(error(truncated),
            "BadGzip: binaryData[\"snapshot.json.gz\"]: truncated: the gzip "
            "stream ends early");
  json not_gzip = gz;
  not_gzip["binaryData"]["snapshot.json.gz"] =
      runtime::Base64Encode("plain text");
  EXPECT_EQ(error(not_gzip),
            "BadGzip: binaryData[\"snapshot.json.gz\"]: corrupt gzip data: "
            "incorrect header check");
  json bad_version = text;
  bad_version["metadata"]["annotations"]["gslb.ax.io/snapshot-version"] = "v1";
  EXPECT_EQ(error(bad_version),
            "BadAnnotation: metadata.annotations[\"gslb.ax.io/"
            "snapshot-version\"]: must be a decimal version");
  json other_hash = text;
  other_hash["metadata"]["annotations"]["gslb.ax.io/content-hash"] =
      "fnv1a64:0000000000000000";
  EXPECT_EQ(error(other_hash),
            "HashMismatch: metadata.annotations[\"gslb.ax.io/content-hash\"] "
            "is fnv1a64:0000000000000000, the document's content hash is " +
                s.content_hash);
  json other_version = text;
  other_version["metadata"]["annotations"]["gslb.ax.io/snapshot-version"] = "7";
  EXPECT_EQ(error(other_version),
            "VersionMismatch: metadata.annotations[\"gslb.ax.io/"
            "snapshot-version\"] is 7, the document's version is 1");
  json broken_doc = text;
  broken_doc["data"]["snapshot.json"] = "{\"formatVersion\":1";
  EXPECT_TRUE(
      error(broken_doc)
          .starts_with("BadSnapshot: the document is not a valid snapshot: "))
      << error(broken_doc);
}

// A ConfigMap made by hand (no annotations) still decodes; version and hash
// then come from the document.
TEST(RouteTableConfigMap, AnnotationsAreOptional) {
  const Snapshot s = SmallSnapshot();
  json cm = Encode(s);
  cm["metadata"].erase("annotations");
  ParseRouteTableResult p = ParseRouteTableConfigMap(cm);
  ASSERT_TRUE(p.snapshot) << p.error->ToString();
  EXPECT_EQ(p.snapshot->version, s.version);
}

}  // namespace
}  // namespace ax
