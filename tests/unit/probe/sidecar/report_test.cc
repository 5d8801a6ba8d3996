// The sidecar's pure parts: the write schedule (health change at once, else
// the heartbeat, on an injected clock) and the atomic file output.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "sidecar/report_output.h"
#include "sidecar/report_schedule.h"
#include "temp_dir.h"

namespace ax::probe {
namespace {

TEST(ReportScheduleTest, HealthChangeAtOnceElseHeartbeat) {
  ReportSchedule s(10'000);
  const HealthKey up = {{"a", Health::kUp}};
  EXPECT_FALSE(s.NextHeartbeatMs());
  EXPECT_TRUE(s.Due(up, 0));  // nothing written yet
  s.Written(up, 5'000);
  EXPECT_EQ(*s.NextHeartbeatMs(), 15'000);
  EXPECT_FALSE(s.Due(up, 5'001));
  EXPECT_FALSE(s.Due(up, 14'999));
  EXPECT_TRUE(s.Due(up, 15'000));  // heartbeat, nothing changed

  const HealthKey down = {{"a", Health::kDown}};
  EXPECT_TRUE(s.Due(down, 5'001));  // a verdict changed: at once
  s.Written(down, 5'001);
  EXPECT_FALSE(s.Due(down, 6'000));
  EXPECT_EQ(*s.NextHeartbeatMs(), 15'001);

  // A node came or went: at once too.
  EXPECT_TRUE(s.Due({}, 6'000));
  EXPECT_TRUE(s.Due({{"a", Health::kDown}, {"b", Health::kUnknown}}, 6'000));
}

using ax::testing::TempDir;

std::string ReadAll(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(ReportOutputTest, ReplacesTheFileAtomically) {
  TempDir dir;
  const auto file = dir.path() / "report.json";
  const ReportOutput out(file.string());
  std::string error;
  ASSERT_TRUE(out.Write(R"({"n":1})", &error)) << error;
  EXPECT_EQ(ReadAll(file), "{\"n\":1}\n");
  ASSERT_TRUE(out.Write(R"({"n":2})", &error)) << error;
  EXPECT_EQ(ReadAll(file), "{\"n\":2}\n");
  // No temp file is left behind.
  size_t entries = 0;
  for ([[maybe_unused]] const auto& e :
       std::filesystem::directory_iterator(dir.path())) {
    ++entries;
  }
  EXPECT_EQ(entries, 1u);

  const ReportOutput broken((dir.path() / "missing" / "r.json").string());
  EXPECT_FALSE(broken.Write("{}", &error));
  EXPECT_NE(error.find("missing/r.json"), std::string::npos) << error;
  EXPECT_FALSE(ReportOutput("").enabled());
}

}  // namespace
}  // namespace ax::probe
