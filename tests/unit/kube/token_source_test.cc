// Token rotation: the file is re-read once per period on an injected clock,
// a failed or empty read keeps the last good token, and a fixed token stands
// in until the file was ever read.
#include "ax/kube/token_source.h"

#include <gtest/gtest.h>

#include "temp_dir.h"

namespace ax::kube {
namespace {

using ::ax::testing::TempDir;
using ::ax::testing::WriteFile;
using std::chrono::seconds;

class TokenSourceTest : public ::testing::Test {
 protected:
  TokenSource Source(std::string fixed = "") {
    return TokenSource(std::move(fixed), file_.string(), seconds(60),
                       [this] { return now_; });
  }

  TempDir dir_;
  std::filesystem::path file_ = dir_ / "token";
  std::chrono::steady_clock::time_point now_{};
};

TEST_F(TokenSourceTest, RereadsTheFileOncePerPeriod) {
  WriteFile(file_, "first\n");
  TokenSource source = Source();
  EXPECT_EQ(source.Get(), "first");
  WriteFile(file_, "second");  // rotated by the kubelet
  now_ += seconds(59);
  EXPECT_EQ(source.Get(), "first");
  now_ += seconds(1);
  EXPECT_EQ(source.Get(), "second");
}

TEST_F(TokenSourceTest, KeepsTheLastGoodTokenWhenTheFileIsBad) {
  WriteFile(file_, "good");
  TokenSource source = Source();
  EXPECT_EQ(source.Get(), "good");
  WriteFile(file_, "");
  now_ += seconds(60);
  EXPECT_EQ(source.Get(), "good");
  std::filesystem::remove(file_);
  now_ += seconds(60);
  EXPECT_EQ(source.Get(), "good");
  WriteFile(file_, "better");
  now_ += seconds(60);
  EXPECT_EQ(source.Get(), "better");
}

TEST_F(TokenSourceTest, FixedTokenUntilTheFileWasRead) {
  TokenSource source = Source("fixed");
  EXPECT_EQ(source.Get(), "fixed");  // no file yet
  WriteFile(file_, "from-file");
  now_ += seconds(60);
  EXPECT_EQ(source.Get(), "from-file");  // the file wins, as in client-go
}

TEST(TokenSourceFixedTest, WithoutAFileTheTokenIsFixed) {
  TokenSource source("abc", "");
  EXPECT_EQ(source.Get(), "abc");
  TokenSource none("", "");
  EXPECT_EQ(none.Get(), "");
}

}  // namespace
}  // namespace ax::kube
