// ParseBoundedJson against nlohmann's own parser (the reference for what a
// document means), its limits, and its cost on objects with many keys.
#include "pagoda/server/bounded_json.h"

#include <chrono>
#include <random>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace pagoda::server {
namespace {

using Json = nlohmann::ordered_json;

// A random document of objects, arrays, strings, numbers, booleans and nulls.
Json RandomValue(std::mt19937& rng, int depth) {
  std::uniform_int_distribution<int> kind(0, depth > 4 ? 4 : 6);
  switch (kind(rng)) {
    case 0: return nullptr;
    case 1: return rng() % 2 == 0;
    case 2: return static_cast<int64_t>(rng()) - (1 << 30);
    case 3: return static_cast<double>(rng()) / 7.0;
    case 4: return fmt::format("s{}\u00e9\"\\", rng() % 100);
    case 5: {
      Json a = Json::array();
      for (uint32_t i = rng() % 5; i > 0; --i) a.push_back(RandomValue(rng, depth + 1));
      return a;
    }
    default: {
      Json o = Json::object();
      for (uint32_t i = rng() % 6; i > 0; --i) o[fmt::format("k{}", rng() % 8)] = RandomValue(rng, depth + 1);
      return o;
    }
  }
}

TEST(BoundedJson, MatchesNlohmannsParserOnRandomDocuments) {
  std::mt19937 rng(7);
  for (int i = 0; i < 500; ++i) {
    const std::string text = RandomValue(rng, 0).dump(rng() % 2 == 0 ? -1 : 2);
    StatusOr<Json> parsed = ParseBoundedJson(text);
    ASSERT_TRUE(parsed.ok()) << parsed.status().message() << "\n" << text;
    const Json reference = Json::parse(text);
    EXPECT_EQ(parsed->dump(), reference.dump()) << text;  // dump() shows key order too
  }
}

TEST(BoundedJson, KeepsKeyOrderAndTreatsDuplicatesAsNlohmannDoes) {
  const std::string text = R"({"b": 1, "a": {"z": [1, {"y": 2, "x": 3}], "c": null}, "b": 7, "d": "e"})";
  StatusOr<Json> parsed = ParseBoundedJson(text);
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->dump(), Json::parse(text).dump());
  EXPECT_EQ(parsed->dump(), R"({"b":7,"a":{"z":[1,{"y":2,"x":3}],"c":null},"d":"e"})");
}

TEST(BoundedJson, ScalarsAndEmptyContainersAtTheTop) {
  for (const char* text : {"1", "-2.5", "\"x\"", "true", "null", "[]", "{}", "[[[]]]", " {\"a\":{}} "}) {
    StatusOr<Json> parsed = ParseBoundedJson(text);
    ASSERT_TRUE(parsed.ok()) << text;
    EXPECT_EQ(parsed->dump(), Json::parse(text).dump()) << text;
  }
}

TEST(BoundedJson, InvalidJsonIsAnErrorThatSaysSo) {
  for (const char* text : {"", "{", "{\"a\" 1}", "[1,]", "{\"a\":1}x", "nul", "\"\\x\"", "{1: 2}"}) {
    StatusOr<Json> parsed = ParseBoundedJson(text);
    ASSERT_FALSE(parsed.ok()) << text;
    EXPECT_EQ(parsed.status().code(), StatusCode::kInvalidArgument);
    EXPECT_TRUE(parsed.status().message().starts_with("the request body is not valid JSON")) << text;
  }
}

TEST(BoundedJson, NestingPastTheLimitIsRefusedNamingIt) {
  const JsonLimits limits{.max_depth = 10, .max_object_keys = 100};
  EXPECT_TRUE(ParseBoundedJson(std::string(10, '[') + std::string(10, ']'), limits).ok());
  StatusOr<Json> deep = ParseBoundedJson(std::string(11, '[') + std::string(11, ']'), limits);
  ASSERT_FALSE(deep.ok());
  EXPECT_EQ(deep.status().message(), "the request nests deeper than 10 levels");
  // The default limit holds against a body that is all brackets.
  StatusOr<Json> huge = ParseBoundedJson(std::string(1 << 20, '['));
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.status().message(), fmt::format("the request nests deeper than {} levels", JsonLimits{}.max_depth));
}

std::string ObjectWithKeys(size_t n) {
  std::string text = "{";
  for (size_t i = 0; i < n; ++i) text += fmt::format("{}\"{}\": {}", i == 0 ? "" : ",", i, i % 7);
  return text + "}";
}

TEST(BoundedJson, TooManyKeysInOneObjectIsRefusedNamingTheLimit) {
  const JsonLimits limits{.max_depth = 10, .max_object_keys = 100};
  EXPECT_TRUE(ParseBoundedJson(ObjectWithKeys(100), limits).ok());
  // Repeating a key does not count twice.
  EXPECT_TRUE(ParseBoundedJson(R"({"a":1,"a":2,"a":3})", JsonLimits{.max_depth = 4, .max_object_keys = 1}).ok());
  StatusOr<Json> many = ParseBoundedJson(ObjectWithKeys(101), limits);
  ASSERT_FALSE(many.ok());
  EXPECT_EQ(many.status().message(), "an object in the request has more than 100 keys");
  // The limit is per object: two objects of 100 keys are fine.
  EXPECT_TRUE(ParseBoundedJson(fmt::format("[{0},{0}]", ObjectWithKeys(100)), limits).ok());
}

TEST(BoundedJson, AnObjectOfTheMostKeysAllowedParsesInLinearTime) {
  // nlohmann's own ordered_json parser, quadratic, needs seconds for this
  // object (13 s on this machine while busy; 32 s at 200,000 keys); a
  // linear parse takes tens of milliseconds, a few times that under the
  // sanitizers.
  const std::string text = ObjectWithKeys(JsonLimits{}.max_object_keys);
  const auto start = std::chrono::steady_clock::now();
  StatusOr<Json> parsed = ParseBoundedJson(text);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->size(), JsonLimits{}.max_object_keys);
  EXPECT_EQ(parsed->begin().key(), "0");
  EXPECT_LT(seconds, 1.5);
}

}  // namespace
}  // namespace pagoda::server
