// Standalone leaves a bad object out by name, as the operator's plan does:
// the rest is served and the error names file, object and field; a directory
// that yields no valid Domain keeps the last good snapshot; a file whose YAML
// does not parse keeps the objects last read from it.
#include <gtest/gtest.h>

#include <string>

#include "standalone_dir.h"

namespace ax::dns {
namespace {

using namespace std::chrono_literals;
using testing::WaitFor;

const StandaloneOptions kFast{.debounce = 20ms, .rebuild_interval = 50ms};

double Gauge(const StandaloneSource& source, const std::string& family) {
  for (const auto& f : source.plan_metrics()->Collect()) {
    if (f.name == family) return f.metric.at(0).gauge.value;
  }
  return -1;
}

class StandaloneLeaveOutTest : public testing::StandaloneDirTest {};

TEST_F(StandaloneLeaveOutTest, ABadDomainIsLeftOutAndTheRestServed) {
  Edit("domains.yaml", {{"maxAnswers: 2", "maxAnswers: -2"}});  // www
  const auto source = StartSource(kFast);
  ASSERT_TRUE(store_.Current());
  EXPECT_FALSE(Served("www"));
  ASSERT_TRUE(Served("api"));
  EXPECT_EQ(Served("api")->max_answers, 4u);
  const StoreStatus status = store_.Status();
  EXPECT_EQ(status.errors, 1u);
  EXPECT_NE(status.last_error.find("manifest error"), std::string::npos);
  EXPECT_NE(status.last_error.find("domains.yaml:3#1: Domain/www: "
                                   "spec.maxAnswers"),
            std::string::npos)
      << status.last_error;
  // www, and the Rule that names it.
  EXPECT_EQ(Gauge(*source, "ax_dns_standalone_invalid_objects"), 2);
  EXPECT_EQ(Gauge(*source, "ax_dns_standalone_manifest_errors"), 0);

  Edit("domains.yaml", {{"maxAnswers: -2", "maxAnswers: 3"}});
  ASSERT_TRUE(WaitFor([&] { return Served("www").has_value(); }));
  EXPECT_EQ(Served("www")->max_answers, 3u);
  EXPECT_TRUE(WaitFor([&] {
    return Gauge(*source, "ax_dns_standalone_invalid_objects") == 0;
  }));
}

TEST_F(StandaloneLeaveOutTest, NoValidDomainKeepsTheLastGoodSnapshot) {
  const auto source = StartSource(kFast);
  ASSERT_TRUE(store_.Current());
  const uint64_t good = Version();

  const uint64_t errors = store_.Status().errors;
  Edit("domains.yaml", {{"maxAnswers: 2", "maxAnswers: -2"},
                        {"maxAnswers: 4", "maxAnswers: -4"}});
  ASSERT_TRUE(WaitFor([&] { return store_.Status().errors > errors; }));
  // Both Domains, the Rule on www and the Canary on api.
  ASSERT_TRUE(WaitFor([&] {
    return Gauge(*source, "ax_dns_standalone_invalid_objects") == 4;
  }));
  EXPECT_EQ(Version(), good);
  ASSERT_TRUE(Served("www"));
  EXPECT_EQ(Served("www")->max_answers, 2u);

  Edit("domains.yaml", {{"maxAnswers: -2", "maxAnswers: 1"}});
  ASSERT_TRUE(WaitFor([&] { return Version() > good; }));
  EXPECT_EQ(Served("www")->max_answers, 1u);
  EXPECT_FALSE(Served("api"));
}

TEST_F(StandaloneLeaveOutTest, AFileThatDoesNotParseKeepsItsObjects) {
  const auto source = StartSource(kFast);
  ASSERT_TRUE(store_.Current());
  const size_t nodes = store_.Current()->snapshot().nodes.size();
  ASSERT_EQ(nodes, 6u);

  const uint64_t errors = store_.Status().errors;
  Edit("nodes.yaml", {{"adminState: Drain", "adminState: [Drain"}});
  ASSERT_TRUE(WaitFor([&] { return store_.Status().errors > errors; }));
  EXPECT_NE(store_.Status().last_error.find("YAML syntax error"),
            std::string::npos)
      << store_.Status().last_error;
  // Set at the end of the pass that recorded the error.
  EXPECT_TRUE(WaitFor([&] {
    return Gauge(*source, "ax_dns_standalone_manifest_errors") == 1;
  }));

  // Another file's edit is served with the broken file's objects as before.
  Edit("domains.yaml", {{"maxAnswers: 2", "maxAnswers: 3"}});
  ASSERT_TRUE(WaitFor(
      [&] { return Served("www") && Served("www")->max_answers == 3; }));
  EXPECT_EQ(store_.Current()->snapshot().nodes.size(), nodes);
}

}  // namespace
}  // namespace ax::dns
