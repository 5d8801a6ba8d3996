// StandaloneSource on a copy of examples/quickstart: serves at start, follows
// a manifest edit, leaves a broken object out (the rest served), serves
// nothing while no Domain is valid, and keeps an operator's rollback until
// the manifests change.
#include "server/standalone.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "server_test_support.h"

namespace ax::dns {
namespace {

using namespace std::chrono_literals;
using testing::QuickstartDir;
using testing::ReadFile;
using testing::TempDir;
using testing::WaitFor;
using testing::WriteFileAtomically;

const StandaloneOptions kFast{.debounce = 20ms, .rebuild_interval = 100ms};

class StandaloneTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::copy(QuickstartDir(), dir_.path(),
                          std::filesystem::copy_options::recursive);
  }
  uint64_t Version() const {
    const auto state = store_.Current();
    return state ? state->snapshot().version : 0;
  }
  uint32_t MaxAnswers(const std::string& domain) const {
    for (const SnapshotDomain& d : store_.Current()->snapshot().domains) {
      if (d.name == domain) return d.max_answers;
    }
    return 0;
  }
  // Rewrites domains.yaml with `from` replaced by `to` (first occurrence).
  void EditDomains(const std::string& from, const std::string& to) {
    std::string text = ReadFile(dir_ / "domains.yaml");
    const size_t at = text.find(from);
    ASSERT_NE(at, std::string::npos);
    text.replace(at, from.size(), to);
    WriteFileAtomically(dir_ / "domains.yaml", text);
  }

  TempDir dir_;
  SnapshotStore store_{{}};
};

TEST_F(StandaloneTest, ServesFollowsEditsAndKeepsLastGood) {
  StandaloneSource source(dir_.path(), &store_, kFast);
  std::string error;
  ASSERT_TRUE(source.Start(&error)) << error;
  const uint64_t first = Version();
  ASSERT_GE(first, 1u);
  EXPECT_EQ(MaxAnswers("www"), 2u);

  // Periodic rebuilds of an unchanged world publish nothing new: three more
  // passes on the rebuild tick, and still the first version.
  const uint64_t started = source.Passes();
  ASSERT_TRUE(WaitFor([&] { return source.Passes() >= started + 3; }));
  EXPECT_EQ(Version(), first);

  EditDomains("maxAnswers: 2", "maxAnswers: 3");
  ASSERT_TRUE(WaitFor([&] { return MaxAnswers("www") == 3; }));
  const uint64_t second = Version();
  EXPECT_GT(second, first);

  const uint64_t errors_before = store_.Status().errors;
  EditDomains("maxAnswers: 3", "maxAnswers: -3");  // invalid
  ASSERT_TRUE(WaitFor([&] { return store_.Status().errors > errors_before; }));
  EXPECT_NE(store_.Status().last_error.find("domains.yaml"), std::string::npos)
      << store_.Status().last_error;
  // Issue 13: the broken Domain is left out by name, the rest is served.
  ASSERT_TRUE(WaitFor([&] { return MaxAnswers("www") == 0; }));
  EXPECT_GT(Version(), second);
  EXPECT_EQ(MaxAnswers("api"), 4u);

  EditDomains("maxAnswers: -3", "maxAnswers: 1");
  ASSERT_TRUE(WaitFor([&] { return MaxAnswers("www") == 1; }));
  EXPECT_GT(Version(), second);
  source.Stop();
}

TEST_F(StandaloneTest, BrokenAtStartServesNothingUntilFixed) {
  const std::string good = ReadFile(dir_ / "domains.yaml");
  EditDomains("maxAnswers: 2", "maxAnswers: -2");
  // Issue 13: one bad Domain is left out alone; break both, so none is valid.
  EditDomains("maxAnswers: 4", "maxAnswers: -4");
  StandaloneSource source(dir_.path(), &store_, kFast);
  std::string error;
  EXPECT_FALSE(source.Start(&error));
  EXPECT_NE(error.find("manifest error"), std::string::npos) << error;
  EXPECT_EQ(store_.Current(), nullptr);

  WriteFileAtomically(dir_ / "domains.yaml", good);
  EXPECT_TRUE(WaitFor([&] { return store_.Current() != nullptr; }));
  source.Stop();
}

// Probing on: the probe metrics collector (probe/metrics) is there for
// /metrics, with the source's vantage on ax_probe_up and every quickstart
// node that declares a healthCheck.
TEST_F(StandaloneTest, ProbingExposesTheProbeMetrics) {
  StandaloneOptions options = kFast;
  options.probe = true;
  options.vantage = "unit-vantage";
  StandaloneSource source(dir_.path(), &store_, options);
  std::string error;
  ASSERT_TRUE(source.Start(&error)) << error;
  ASSERT_NE(source.probe_metrics(), nullptr);
  // Whatever the demo ports answer here (usually nothing: refused), each
  // node gets a first probe within the cold-start spread.
  std::set<std::string> probed;
  ASSERT_TRUE(WaitFor([&] {
    probed.clear();
    for (const auto& f : source.probe_metrics()->Collect()) {
      if (f.name != "ax_probe_up") continue;
      for (const auto& m : f.metric) {
        EXPECT_EQ(m.label.at(1).name, "vantage");
        EXPECT_EQ(m.label.at(1).value, "unit-vantage");
        probed.insert(m.label.at(0).value);
      }
    }
    return probed.size() >= 3 && probed.count("gz-01") > 0;
  })) << probed.size();
  source.Stop();
}

}  // namespace
}  // namespace ax::dns
