// ProbeTargetsForWorld's tokens (issue 15): a token is read only from a file
// of the token directory (a Secret volume's links into its ..data folder
// included), never through a name or a link that leaves it, and only for the
// Nodes its binding file lists; every token not sent says why. Which Nodes are
// probed at all by their adminState.
#include "engine/world_targets.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>

#include "ax/ip.h"
#include "temp_dir.h"

namespace ax::probe {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

class WorldTargetsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(tokens());
    Write(root_ / "secret", "the pod's own credential\n");
  }

  fs::path tokens() const { return root_ / "tokens"; }
  static void Write(const fs::path& file, const std::string& text) {
    ax::testing::WriteFile(file, text);
  }
  static Node ProbedNode(const std::string& name, const std::string& ref) {
    Node n;
    n.meta.name = name;
    n.addresses = {*ParseIp("192.0.2.1")};
    HealthCheck& check = n.health_check.emplace();
    check.port = 443;
    check.token_secret_ref = ref;
    return n;
  }
  // node -> token sent, and node -> why not, for one Node per (name, ref).
  void Targets(const std::map<std::string, std::string>& refs,
               const fs::path& dir) {
    World world;
    for (const auto& [name, ref] : refs)
      world.nodes.push_back(ProbedNode(name, ref));
    const WorldTargets got = ProbeTargetsForWorld(world, dir);
    sent_.clear();
    why_not_.clear();
    for (const ProbeTarget& t : got.targets) sent_[t.node] = t.token;
    for (const TokenProblem& p : got.token_problems)
      why_not_[p.node] = p.reason;
  }

  ax::testing::TempDir dir_;
  const fs::path& root_ = dir_.path();
  std::map<std::string, std::string> sent_;
  std::map<std::string, std::string> why_not_;
};

TEST_F(WorldTargetsTest, SendsTheFirstLineOfAFileInTheDirectory) {
  Write(tokens() / "api-token", "s3cret\r\nsecond line\n");
  Targets({{"gz-01", "api-token"}}, tokens());
  EXPECT_EQ(sent_["gz-01"], "s3cret");
  EXPECT_THAT(why_not_, IsEmpty());
}

// How a Secret volume lays out its keys: links into ..data, itself a link to
// a timestamped folder.
TEST_F(WorldTargetsTest, FollowsASecretVolumesLinksInsideTheDirectory) {
  fs::create_directories(tokens() / "..2026_12_01_00_00_00.1");
  Write(tokens() / "..2026_12_01_00_00_00.1" / "api-token", "from-secret\n");
  fs::create_directory_symlink("..2026_12_01_00_00_00.1", tokens() / "..data");
  fs::create_symlink("..data/api-token", tokens() / "api-token");
  Targets({{"gz-01", "api-token"}}, tokens());
  EXPECT_EQ(sent_["gz-01"], "from-secret");
}

// Names the parser refuses, in a World built without it: nothing is read,
// the Node is probed without a token, and the problem names the field.
TEST_F(WorldTargetsTest, NeverReadsThroughANameThatLeavesTheDirectory) {
  Targets({{"abs", (root_ / "secret").string()},
           {"parent", "../secret"},
           {"dots", ".."},
           {"binding", "api-token.nodes"}},
          tokens());
  for (const char* node : {"abs", "parent", "dots", "binding"}) {
    EXPECT_EQ(sent_[node], "") << node;
    EXPECT_THAT(why_not_[node], HasSubstr("tokenSecretRef must")) << node;
  }
}

TEST_F(WorldTargetsTest, NeverReadsThroughALinkOutOfTheDirectory) {
  fs::create_symlink(root_ / "secret", tokens() / "planted");
  Targets({{"gz-01", "planted"}}, tokens());
  EXPECT_EQ(sent_["gz-01"], "");
  EXPECT_THAT(why_not_["gz-01"], HasSubstr("link out of the token directory"));
}

// api-token.nodes binds api-token to gz-01 and every edge-* Node; another
// token without a binding file serves any Node.
TEST_F(WorldTargetsTest, ABindingFileLimitsWhichNodesSendTheToken) {
  Write(tokens() / "api-token", "api\n");
  Write(tokens() / "api-token.nodes", "# who may send it\ngz-01\n\n edge-* \n");
  Write(tokens() / "open-token", "open\n");
  Targets({{"gz-01", "api-token"},
           {"edge-7", "api-token"},
           {"bj-01", "api-token"},
           {"sh-01", "open-token"}},
          tokens());
  EXPECT_EQ(sent_["gz-01"], "api");
  EXPECT_EQ(sent_["edge-7"], "api");
  EXPECT_EQ(sent_["bj-01"], "");
  EXPECT_THAT(why_not_["bj-01"], HasSubstr("not bound to this Node"));
  EXPECT_THAT(why_not_["bj-01"], HasSubstr("api-token.nodes"));
  EXPECT_EQ(sent_["sh-01"], "open");
}

TEST_F(WorldTargetsTest, SaysWhyWhenThereIsNoDirectoryOrNoFile) {
  Targets({{"gz-01", "api-token"}}, "");
  EXPECT_THAT(why_not_["gz-01"], HasSubstr("--probe-token-dir"));
  Targets({{"gz-01", "missing"}}, tokens());
  EXPECT_THAT(why_not_["gz-01"], HasSubstr("missing"));
  Write(tokens() / "blank", "\nsecond\n");
  Targets({{"gz-01", "blank"}}, tokens());
  EXPECT_THAT(why_not_["gz-01"], HasSubstr("empty first line"));
}

// A Disabled node is not probed, unless it is disabled for a window: then it
// has a verdict the moment the window ends and it is answered again.
TEST_F(WorldTargetsTest, ADisabledNodeIsProbedOnlyIfItComesBack) {
  World world;
  for (const char* name : {"off", "off-for-now", "on"}) {
    world.nodes.push_back(ProbedNode(name, ""));
  }
  world.nodes[0].admin_state = AdminState::kDisabled;
  world.nodes[1].admin_state = AdminState::kDisabled;
  world.nodes[1].admin_state_expires_at = 1796313600;
  std::vector<std::string> probed;
  for (const ProbeTarget& t : ProbeTargetsForWorld(world, tokens()).targets) {
    probed.push_back(t.node);
  }
  EXPECT_THAT(probed, ::testing::ElementsAre("off-for-now", "on"));
}

}  // namespace
}  // namespace ax::probe
