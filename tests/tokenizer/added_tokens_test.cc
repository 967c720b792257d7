#include "pagoda/tokenizer/added_tokens.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace pagoda::tokenizer {
namespace {

using Segments = std::vector<std::pair<std::string, TokenId>>;

Segments Split(const AddedTokenMatcher& matcher, std::string_view text, bool parse_special = true) {
  std::vector<AddedTokenMatcher::Segment> segments;
  matcher.Split(text, parse_special, &segments);
  Segments out;
  for (const auto& s : segments) out.emplace_back(std::string(s.text), s.id);
  return out;
}

TEST(tokenizer_added_tokens, LongestMatchAtEachPosition) {
  AddedTokenMatcher matcher({{"<a>", 1, true}, {"<a><b>", 2, true}, {"<b>", 3, true}});
  EXPECT_EQ(Split(matcher, "x<a><b>y<a>"), (Segments{{"x", -1}, {"<a><b>", 2}, {"y", -1}, {"<a>", 1}}));
  EXPECT_EQ(Split(matcher, "<b><a>"), (Segments{{"<b>", 3}, {"<a>", 1}}));
  EXPECT_EQ(Split(matcher, "plain"), (Segments{{"plain", -1}}));
  EXPECT_EQ(Split(matcher, ""), Segments{});
}

TEST(tokenizer_added_tokens, LeftmostMatchWinsOverLongerLaterOne) {
  AddedTokenMatcher matcher({{"abc", 1, false}, {"bcdef", 2, false}});
  EXPECT_EQ(Split(matcher, "abcdef"), (Segments{{"abc", 1}, {"def", -1}}));
}

TEST(tokenizer_added_tokens, ControlTokensOnlyWhenParsingSpecial) {
  AddedTokenMatcher matcher({{"<|im_end|>", 2, true}, {"<tool>", 9, false}});
  EXPECT_EQ(Split(matcher, "a<|im_end|><tool>", /*parse_special=*/false),
            (Segments{{"a<|im_end|>", -1}, {"<tool>", 9}}));
  EXPECT_EQ(Split(matcher, "a<|im_end|><tool>", /*parse_special=*/true),
            (Segments{{"a", -1}, {"<|im_end|>", 2}, {"<tool>", 9}}));
}

}  // namespace
}  // namespace pagoda::tokenizer
