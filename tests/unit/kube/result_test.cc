// Errors from apiserver answers: Status bodies, bare status codes, the
// predicates callers branch on, and the text they log.
#include "ax/kube/result.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace ax::kube {
namespace {

TEST(ErrorTest, ReadsAStatusBody) {
  const Error e = ErrorFromResponse(403, R"({
    "kind": "Status", "apiVersion": "v1", "status": "Failure",
    "message": "secrets is forbidden: User \"x\" cannot create resource",
    "reason": "Forbidden", "code": 403})");
  EXPECT_EQ(e.http_status, 403);
  EXPECT_EQ(e.reason, "Forbidden");
  EXPECT_EQ(e.message,
            "secrets is forbidden: User \"x\" cannot create resource");
  EXPECT_TRUE(e.IsForbidden());
  EXPECT_EQ(e.ToString(),
            "403 Forbidden: secrets is forbidden: User \"x\" cannot create "
            "resource");
}

TEST(ErrorTest, TellsConflictFromAlreadyExists) {
  const Error conflict = ErrorFromResponse(
      409, R"({"kind":"Status","reason":"Conflict","message":"m","code":409})");
  EXPECT_TRUE(conflict.IsConflict());
  EXPECT_FALSE(conflict.IsAlreadyExists());
  const Error exists = ErrorFromResponse(
      409, R"({"kind":"Status","reason":"AlreadyExists","code":409})");
  EXPECT_TRUE(exists.IsAlreadyExists());
  EXPECT_FALSE(exists.IsConflict());
}

TEST(ErrorTest, FallsBackToTheStatusCodeForOtherBodies) {
  const Error e = ErrorFromResponse(404, "404 page not found\n");
  EXPECT_TRUE(e.IsNotFound());
  EXPECT_EQ(e.reason, "NotFound");
  EXPECT_EQ(e.message, "404 page not found\n");
  // A JSON body that is no Status, or a Status with odd field types.
  EXPECT_EQ(ErrorFromResponse(500, R"({"kind":7})").reason, "InternalError");
  const Error odd =
      ErrorFromResponse(410, R"({"kind":"Status","reason":3,"code":"x"})");
  EXPECT_EQ(odd.http_status, 410);
  EXPECT_EQ(odd.reason, "Gone");
  EXPECT_TRUE(odd.IsGone());
}

TEST(ErrorTest, TheHttpStatusWinsOverTheBodysCode) {
  EXPECT_EQ(ErrorFromResponse(
                500, R"({"kind":"Status","reason":"Conflict","code":409})")
                .http_status,
            500);
}

TEST(ErrorTest, ReadsAWatchErrorEvent) {
  const Error e = ErrorFromStatus(
      nlohmann::json::parse(R"json({"kind":"Status","status":"Failure",
        "message":"too old resource version: 1 (208)","reason":"Expired",
        "code":410})json"),
      500);
  EXPECT_TRUE(e.IsGone());
  EXPECT_EQ(e.reason, "Expired");
  EXPECT_EQ(ErrorFromStatus(nlohmann::json::object(), 500).reason,
            "InternalError");
}

TEST(ErrorTest, TransportErrorsHaveNoStatus) {
  const Error e{0, std::string(kReasonCanceled), "GET /x: canceled"};
  EXPECT_TRUE(e.IsCanceled());
  EXPECT_FALSE(e.IsNotFound());
  EXPECT_EQ(e.ToString(), "Canceled: GET /x: canceled");
}

TEST(ResultTest, HoldsAValueOrAnError) {
  Result<int> value = 7;
  ASSERT_TRUE(value.ok());
  EXPECT_EQ(*value, 7);
  Result<int> error = Error{404, "NotFound", "gone"};
  ASSERT_FALSE(error);
  EXPECT_TRUE(error.error().IsNotFound());
  Result<void> done;
  EXPECT_TRUE(done.ok());
  Result<void> failed = Error{500, "InternalError", ""};
  EXPECT_EQ(failed.error().http_status, 500);
}

}  // namespace
}  // namespace ax::kube
