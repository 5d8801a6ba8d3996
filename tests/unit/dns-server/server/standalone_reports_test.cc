// Standalone with --probe-reports: ProbeReport files of vantages elsewhere
// (as ax-probe --report writes them) are planned with the in-process one, so
// vantage groups work without Kubernetes: the quickstart's Guangdong telecom
// vantages seeing gz-01 Down take it out of that region's routes while it
// stays Up globally; a rewritten file plans again; a broken file is left out
// and the others still count.
#include <gtest/gtest.h>

#include "ax/probe_report.h"
#include "standalone_dir.h"

namespace ax::dns {
namespace {

using namespace std::chrono_literals;
using testing::WaitFor;
using testing::WriteFileAtomically;

constexpr int64_t kT0 = 1'796'000'000'000;

class StandaloneReportsTest : public testing::StandaloneDirTest {
 protected:
  void SetUp() override {
    StandaloneDirTest::SetUp();
    std::filesystem::create_directory(reports_dir());
  }
  std::filesystem::path reports_dir() const { return dir_ / "reports"; }

  // Writes vantage `name` of `area`/`isp` seeing gz-01 as `gz01` and every
  // other quickstart node Up.
  void WriteReport(const std::string& name, const std::string& area,
                   const std::string& isp, Health gz01) {
    ProbeReport report;
    report.name = ProbeReportName(name);
    report.vantage = name;
    report.identity = {.area = area, .isp = isp};
    report.observed_at_ms = kT0;
    for (const char* node :
         {"bj-01", "bj-02", "gz-01", "gz-02", "sj-01", "sj-02"}) {
      ProbeNodeReport r;
      r.node = node;
      r.health = std::string(node) == "gz-01" ? gz01 : Health::kUp;
      r.up = r.health == Health::kUp;
      report.results.push_back(r);
    }
    WriteFileAtomically(reports_dir() / (name + ".json"),
                        SerializeProbeReport(report));
  }

  // Whether the served route of domain `www` for `region` lists `node`.
  bool RouteHas(const std::string& region, const std::string& node) const {
    const Snapshot& s = store_.Current()->snapshot();
    uint32_t r = 0;
    while (r < s.regions.size() && s.regions[r].name != region) ++r;
    for (const SnapshotDomain& d : s.domains) {
      if (d.name != "www") continue;
      for (const Candidate& c : s.routes[d.routes.at(r)].candidates) {
        if (s.nodes[c.node].name == node) return true;
      }
    }
    return false;
  }
  Health GlobalHealth(const std::string& node) const {
    for (const SnapshotNode& n : store_.Current()->snapshot().nodes) {
      if (n.name == node) return n.health;
    }
    return Health::kUnknown;
  }

  std::unique_ptr<StandaloneSource> Start() {
    return StartSource({.debounce = 20ms,
                        .rebuild_interval = 50ms,
                        .probe = false,
                        .probe_reports_dir = reports_dir(),
                        .wall_ms = [] { return kT0 + 1000; }});
  }
};

TEST_F(StandaloneReportsTest, AGroupsReportFilesDecideForItsRegion) {
  WriteReport("gz-telecom-1", "cn-south", "telecom", Health::kDown);
  WriteReport("gz-telecom-2", "cn-south", "telecom", Health::kDown);
  WriteReport("bj-unicom-1", "cn-north", "unicom", Health::kUp);
  WriteReport("bj-unicom-2", "cn-north", "unicom", Health::kUp);
  const auto source = Start();
  // 3 of 5 vantages (the in-process one counts Up) see gz-01 Up.
  EXPECT_EQ(GlobalHealth("gz-01"), Health::kUp);
  EXPECT_FALSE(RouteHas("cn-south-telecom", "gz-01"));
  const Snapshot& s = store_.Current()->snapshot();
  ASSERT_EQ(s.vantage_groups.size(), 2u);
  EXPECT_EQ(s.vantage_groups[1].name, "cn-south-telecom");
  EXPECT_EQ(s.vantage_groups[1].vantages, 2u);

  // The telecom path heals: the rewritten files plan again.
  WriteReport("gz-telecom-1", "cn-south", "telecom", Health::kUp);
  WriteReport("gz-telecom-2", "cn-south", "telecom", Health::kUp);
  EXPECT_TRUE(WaitFor([&] { return RouteHas("cn-south-telecom", "gz-01"); }));
}

TEST_F(StandaloneReportsTest, ABrokenFileIsLeftOutAndTheOthersCount) {
  WriteReport("gz-telecom-1", "cn-south", "telecom", Health::kDown);
  WriteFileAtomically(reports_dir() / "gz-telecom-2.json", "{\"spec\":");
  WriteFileAtomically(reports_dir() / "notes.txt", "not a report");
  const auto source = Start();
  EXPECT_FALSE(RouteHas("cn-south-telecom", "gz-01"));
  const Snapshot& s = store_.Current()->snapshot();
  ASSERT_EQ(s.vantage_groups.size(), 1u);
  EXPECT_EQ(s.vantage_groups[0].vantages, 1u);
}

}  // namespace
}  // namespace ax::dns
