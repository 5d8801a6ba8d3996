// CheckBearer: the right token in, a wrong or missing one out, the scheme
// case-insensitive, the file re-read at each check (a rotated Secret), and
// nobody in when the file is unreadable or empty.
#include "ax/runtime/bearer_token.h"

#include <gtest/gtest.h>

#include "temp_dir.h"

namespace ax::runtime {
namespace {

TEST(BearerToken, OnlyTheFilesTokenGetsIn) {
  testing::TempDir dir;
  const std::string file = dir.Write("token", "s3cret-token\n").string();
  EXPECT_EQ(CheckBearer(file, "Bearer s3cret-token"), BearerCheck::kAllowed);
  EXPECT_EQ(CheckBearer(file, "bearer s3cret-token"), BearerCheck::kAllowed);
  EXPECT_EQ(CheckBearer(file, "Bearer s3cret-tokeN"), BearerCheck::kWrong);
  EXPECT_EQ(CheckBearer(file, "Bearer s3cret-token "), BearerCheck::kWrong);
  EXPECT_EQ(CheckBearer(file, "Bearer "), BearerCheck::kMissing);
  EXPECT_EQ(CheckBearer(file, "Basic czNjcmV0"), BearerCheck::kMissing);
  EXPECT_EQ(CheckBearer(file, ""), BearerCheck::kMissing);

  dir.Write("token", "rotated\r\n");
  EXPECT_EQ(CheckBearer(file, "Bearer s3cret-token"), BearerCheck::kWrong);
  EXPECT_EQ(CheckBearer(file, "Bearer rotated"), BearerCheck::kAllowed);
}

TEST(BearerToken, NobodyGetsInWithoutAToken) {
  testing::TempDir dir;
  const std::string empty = dir.Write("empty", "\n").string();
  EXPECT_EQ(CheckBearer(empty, "Bearer "), BearerCheck::kUnavailable);
  EXPECT_EQ(CheckBearer(empty, "Bearer x"), BearerCheck::kUnavailable);
  EXPECT_EQ(CheckBearer((dir / "missing").string(), "Bearer x"),
            BearerCheck::kUnavailable);
}

}  // namespace
}  // namespace ax::runtime
