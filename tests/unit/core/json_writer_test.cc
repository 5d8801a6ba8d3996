// JsonWriter against nlohmann's serializer, the text the decision log had:
// separators in nested containers, escapes, invalid UTF-8 replaced, integers
// at their limits, and doubles in every notation nlohmann uses (seeded
// random values across the exponent range included).
#include "ax/json_writer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "ax/json_text.h"
#include "ax/rng.h"

namespace ax {
namespace {

std::string Written(double value) {
  std::string out;
  JsonWriter(out).Double(value);
  return out;
}

std::string Dumped(double value) { return nlohmann::json(value).dump(); }

TEST(JsonWriterTest, NestedContainersGetTheirSeparators) {
  std::string out;
  JsonWriter w(out);
  w.BeginObject();
  w.Key("ts");
  w.Int(1234);
  w.Key("ecs");
  w.Null();
  w.Key("candidates");
  w.BeginArray();
  for (const char* node : {"a", "b"}) {
    w.BeginObject();
    w.Key("node");
    w.String(node);
    w.Key("weight");
    w.Double(100);
    w.EndObject();
  }
  w.EndArray();
  w.Key("chosen");
  w.BeginArray();
  w.EndArray();
  w.Key("canary");
  w.Bool(false);
  w.EndObject();
  const nlohmann::ordered_json expected = {
      {"ts", 1234},
      {"ecs", nullptr},
      {"candidates",
       {{{"node", "a"}, {"weight", 100.0}},
        {{"node", "b"}, {"weight", 100.0}}}},
      {"chosen", nlohmann::ordered_json::array()},
      {"canary", false}};
  EXPECT_EQ(out, expected.dump());
}

TEST(JsonWriterTest, StringsAreEscapedAsNlohmannEscapesThem) {
  const std::string cases[] = {
      "plain",
      "quote \" backslash \\ slash /",
      std::string("controls \b\f\n\r\t \x01\x1f \x7f end"),
      std::string("nul \0 inside", 13),
      "华东 电信",          // valid UTF-8 stays as it is
      "\xF0\x9F\x98\x80",   // a 4-octet sequence
      "bad \xff byte",      // invalid: U+FFFD
      "cut \xE5\x8D",       // truncated sequence at the end
      "overlong \xC0\xAF",  // overlong '/'
      "surrogate \xED\xA0\x80",
      "past max \xF4\x90\x80\x80",
  };
  for (const std::string& text : cases) {
    std::string out;
    JsonWriter(out).String(text);
    EXPECT_EQ(out, JsonText(nlohmann::json(text))) << text;
  }
}

// Escapes anywhere in a string: first, last, back to back, between plain
// runs of every length (the writer appends plain runs whole).
TEST(JsonWriterTest, RandomMixesOfPlainAndEscapedOctetsAsNlohmann) {
  const std::string pieces[] = {
      "a",           "bc", "\"", "\\",   "/",    "\b",   "\f",
      "\n",          "\r", "\t", "\x01", "\x1f", "\x7f", std::string(1, '\0'),
      "\xE5\x8D\x8E"};
  Rng rng(20261206);
  for (int i = 0; i < 20000; ++i) {
    std::string text;
    const size_t count = rng.Next() % 12;
    for (size_t k = 0; k < count; ++k) {
      text += pieces[rng.Next() % std::size(pieces)];
    }
    std::string out;
    JsonWriter(out).String(text);
    ASSERT_EQ(out, JsonText(nlohmann::json(text))) << text;
  }
}

TEST(JsonWriterTest, IntegersAtTheirLimits) {
  for (const int64_t v : {int64_t{0}, int64_t{-1}, int64_t{1796473794995},
                          std::numeric_limits<int64_t>::min(),
                          std::numeric_limits<int64_t>::max()}) {
    std::string out;
    JsonWriter(out).Int(v);
    EXPECT_EQ(out, nlohmann::json(v).dump());
  }
  std::string out;
  JsonWriter(out).Uint(std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(out, "18446744073709551615");
}

TEST(JsonWriterTest, DoublesInEachNotation) {
  for (const double v : {0.0,
                         -0.0,
                         1.0,
                         -2.5,
                         100.0,
                         0.1,
                         0.95 * 0.8,
                         1.0 / 3,
                         1e-4,
                         1.5e-4,
                         1e-5,
                         123456789012345.0,
                         1234567890123456.0,
                         1e15,
                         1e16,
                         1e20,
                         1e300,
                         5e-324,
                         std::numeric_limits<double>::max(),
                         std::numeric_limits<double>::min()}) {
    EXPECT_EQ(Written(v), Dumped(v)) << v;
  }
  EXPECT_EQ(Written(std::nan("")), "null");
  EXPECT_EQ(Written(-std::numeric_limits<double>::infinity()), "null");
}

// Weights and scores are products of fractions and small integers: seeded
// random values of those shapes and across the exponent range read back as
// themselves. The text is nlohmann's but where its Grisu2 digits are not the
// closest shortest ones (809 of these 300,000 values): then ours are, never
// longer, and either reads back as the same double.
TEST(JsonWriterTest, RandomDoublesReadBackAsThemselves) {
  Rng rng(20261205);
  int differ = 0;
  for (int i = 0; i < 100000; ++i) {
    const double fraction = rng.Uniform();
    const double values[] = {
        fraction, fraction * static_cast<double>(rng.Next() % 1000),
        std::ldexp(fraction, static_cast<int>(rng.Next() % 200) - 100)};
    for (const double v : values) {
      const std::string written = Written(v), dumped = Dumped(v);
      ASSERT_EQ(nlohmann::json::parse(written).get<double>(), v) << written;
      if (written != dumped) {
        ++differ;
        ASSERT_LE(written.size(), dumped.size()) << written << " " << dumped;
        ASSERT_EQ(nlohmann::json::parse(dumped).get<double>(), v) << dumped;
      }
    }
  }
  EXPECT_LT(differ, 3000) << "of 300000";
}

}  // namespace
}  // namespace ax
