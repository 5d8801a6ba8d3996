// The measurement formats of `axctl geo suggest`: JSON lines and nginx access
// logs parse to the same measurements, bad lines are named by file, line and
// field, and a proposal's manifest reads back as the GeoOverride it was.
#include "axctl/measurement_log.h"

#include <gtest/gtest.h>

#include "ax/model_parse.h"
#include "axctl/geo_suggest_command.h"

namespace ax {
namespace {

TEST(MeasurementLogTest, JsonLinesTakeEveryTimingKeyAndTimeForm) {
  std::vector<Measurement> out;
  std::vector<LogError> errors;
  ParseJsonLines(
      "{\"client\":\"10.0.0.1\",\"node\":\"gz-01\",\"ttfbMs\":20.5,"
      "\"time\":\"2026-12-01T08:00:00+08:00\"}\r\n"
      "\n"
      "{\"client\":\"2001:db8::1\",\"node\":\"bj-01\",\"rttMs\":3,"
      "\"time\":1796083200}\n"
      "{\"client\":\"10.0.0.2\",\"node\":\"gz-01\",\"ms\":0,\"time\":5}",
      "m.jsonl", out, errors);
  ASSERT_TRUE(errors.empty()) << errors[0].ToString();
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(FormatIp(out[0].client), "10.0.0.1");
  EXPECT_EQ(out[0].node, "gz-01");
  EXPECT_DOUBLE_EQ(out[0].ms, 20.5);
  EXPECT_EQ(out[0].time, 1796083200);
  EXPECT_EQ(out[1].time, 1796083200);
  EXPECT_DOUBLE_EQ(out[1].ms, 3);
  EXPECT_EQ(out[2].time, 5);
}

TEST(MeasurementLogTest, BadJsonLinesAreNamedByLineAndField) {
  std::vector<Measurement> out;
  std::vector<LogError> errors;
  ParseJsonLines(
      "[1]\n"
      "{\"client\":\"10.0.0.1\",\"ttfbMs\":1,\"time\":1}\n"
      "{\"client\":\"10.0.0.1\",\"node\":\"a\",\"time\":1}\n"
      "{\"client\":\"10.0.0.1\",\"node\":\"a\",\"rttMs\":\"fast\",\"time\":1}\n"
      "{\"client\":\"10.0.0.1\",\"node\":\"a\",\"ms\":1,\"time\":\"noon\"}\n"
      "{\"client\":\"10.0.0.300\",\"node\":\"a\",\"ms\":1,\"time\":1}\n",
      "m.jsonl", out, errors);
  EXPECT_TRUE(out.empty());
  std::vector<std::string> got;
  for (const LogError& e : errors) got.push_back(e.ToString());
  EXPECT_EQ(got,
            (std::vector<std::string>{
                "m.jsonl:1: not a JSON object",
                "m.jsonl:2: node: must be a node name",
                "m.jsonl:3: ttfbMs: must be a number of ms >= 0 (ttfbMs, "
                "rttMs or ms)",
                "m.jsonl:4: rttMs: must be a number of ms >= 0 (ttfbMs, rttMs "
                "or ms)",
                "m.jsonl:5: time: must be RFC 3339 or unix seconds",
                "m.jsonl:6: client: must be an IP address"}));
}

TEST(MeasurementLogTest, AccessLogLinesGiveClientTimeAndRequestTime) {
  std::vector<Measurement> out;
  std::vector<LogError> errors;
  ParseAccessLog(
      "123.112.0.7 - - [01/Dec/2026:08:00:00 +0800] \"GET /a HTTP/1.1\" 200 "
      "512 \"-\" \"app [1.0]\" 0.023\n"
      "123.112.0.8 - - [01/Dec/2026:08:00:00 +0800] \"GET /a\" 200 1 \"-\" "
      "\"-\" -\n"
      "123.112.0.9 - - [1/Dec/2026:08:00:00 +0800] \"GET /a\" 200 1 \"-\" "
      "\"-\" 0.1\n"
      "host - - [01/Dec/2026:08:00:00 +0800] \"GET /a\" 200 1 \"-\" \"-\" "
      "0.1\n",
      "gz.log", "gz-01", out, errors);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(FormatIp(out[0].client), "123.112.0.7");
  EXPECT_EQ(out[0].node, "gz-01");
  EXPECT_DOUBLE_EQ(out[0].ms, 23);
  EXPECT_EQ(out[0].time, 1796083200);
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_EQ(errors[0].ToString(),
            "gz.log:2: $request_time: the last field must be seconds, e.g. "
            "0.023");
  EXPECT_EQ(errors[1].line, 3u);
  EXPECT_EQ(errors[2].ToString(),
            "gz.log:4: $remote_addr: the first field must be the client's "
            "address");
}

TEST(MeasurementLogTest, AProposalsManifestReadsBackAsTheOverride) {
  GeoOverride o;
  o.meta.name = "geo-10-0-0-0-24";
  o.cidrs = {*ParsePrefix("10.0.0.0/24")};
  o.region = "south";
  o.reason = "measured";
  o.expires_at = 1797292800;
  o.approved = false;
  o.evidence = GeoOverrideEvidence{.samples = 9,
                                   .best_node = "gz-01",
                                   .best_ms = 20.5,
                                   .db_region = "north",
                                   .db_node = "bj-01",
                                   .db_ms = 60,
                                   .from = 1796083200,
                                   .to = 1796169600};
  World world;
  std::vector<ManifestError> errors;
  ASSERT_TRUE(
      ParseManifestObject(GeoOverrideManifest(o), "p.yaml", world, errors))
      << errors[0].ToString();
  const GeoOverride& back = world.geo_overrides.at(0);
  EXPECT_EQ(back.meta.name, o.meta.name);
  EXPECT_EQ(back.cidrs, o.cidrs);
  EXPECT_EQ(back.region, o.region);
  EXPECT_EQ(back.reason, o.reason);
  EXPECT_EQ(back.expires_at, o.expires_at);
  EXPECT_EQ(back.approved, o.approved);
  EXPECT_EQ(back.evidence, o.evidence);
}

}  // namespace
}  // namespace ax
