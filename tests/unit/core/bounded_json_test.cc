// ParseBoundedJson: documents at a bound parse, one past it is refused with
// the bound named, syntax errors give the byte offset, and nothing throws.
#include "ax/bounded_json.h"

#include <gtest/gtest.h>

#include <string>

namespace ax {
namespace {

std::optional<nlohmann::json> Parse(const std::string& text, JsonBounds bounds,
                                    std::string* error) {
  return ParseBoundedJson(text, bounds, error);
}

std::string Nested(size_t depth) {
  return std::string(depth, '[') + std::string(depth, ']');
}

TEST(BoundedJsonTest, DepthUpToTheBoundParses) {
  std::string error;
  const auto doc =
      Parse(Nested(8), {.max_depth = 8, .max_values = 100}, &error);
  ASSERT_TRUE(doc) << error;
  EXPECT_EQ(doc->dump(), Nested(8));
  EXPECT_FALSE(Parse(Nested(9), {.max_depth = 8, .max_values = 100}, &error));
  EXPECT_EQ(error, "nesting deeper than 8 arrays or objects");
}

TEST(BoundedJsonTest, DepthCountsObjectsAndArraysAlike) {
  std::string error;
  EXPECT_TRUE(
      Parse(R"({"a":[{"b":1}]})", {.max_depth = 3, .max_values = 9}, &error));
  EXPECT_FALSE(
      Parse(R"({"a":[{"b":[1]}]})", {.max_depth = 3, .max_values = 9}, &error));
  EXPECT_EQ(error, "nesting deeper than 3 arrays or objects");
}

TEST(BoundedJsonTest, ValuesUpToTheBoundParse) {
  // An array of three numbers is four values.
  std::string error;
  EXPECT_TRUE(Parse("[1,2,3]", {.max_depth = 4, .max_values = 4}, &error));
  EXPECT_FALSE(Parse("[1,2,3,4]", {.max_depth = 4, .max_values = 4}, &error));
  EXPECT_EQ(error, "more than 4 values");
  // Keys are not values; what they name is.
  EXPECT_TRUE(Parse(R"({"a":"x","b":null})", {.max_depth = 4, .max_values = 3},
                    &error));
}

TEST(BoundedJsonTest, SyntaxErrorsGiveTheOffset) {
  std::string error;
  EXPECT_FALSE(
      Parse(R"({"a": tru})", {.max_depth = 4, .max_values = 9}, &error));
  EXPECT_NE(error.find("malformed JSON at byte offset 9"), std::string::npos)
      << error;
  EXPECT_FALSE(Parse("[1] x", {.max_depth = 4, .max_values = 9}, &error));
  EXPECT_NE(error.find("malformed JSON at byte offset 4"), std::string::npos)
      << error;
  EXPECT_FALSE(Parse("", {.max_depth = 4, .max_values = 9}, &error));
  EXPECT_NE(error.find("malformed JSON at byte offset 0"), std::string::npos)
      << error;
}

TEST(BoundedJsonTest, ANumberTooLargeIsAnErrorNotAnException) {
  std::string error;
  EXPECT_FALSE(Parse("[1e999]", {.max_depth = 4, .max_values = 9}, &error));
  EXPECT_NE(error.find("malformed JSON"), std::string::npos) << error;
  EXPECT_NE(error.find("1e999"), std::string::npos) << error;
}

TEST(BoundedJsonTest, AParsedDocumentIsWhatJsonParseBuilds) {
  const std::string text = R"({"a":[1,-2,3.5,"s",true,null,{}],"b":{"c":[]}})";
  std::string error;
  const auto doc = Parse(text, {.max_depth = 8, .max_values = 100}, &error);
  ASSERT_TRUE(doc) << error;
  EXPECT_EQ(*doc, nlohmann::json::parse(text));
}

}  // namespace
}  // namespace ax
