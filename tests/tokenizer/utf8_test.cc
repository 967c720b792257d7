#include "pagoda/tokenizer/utf8.h"

#include <gtest/gtest.h>

#include <string>

namespace pagoda::tokenizer {
namespace {

const std::string kFffd = "\xEF\xBF\xBD";

std::string Lossy(const std::string& bytes) {
  std::string out;
  EXPECT_EQ(AppendUtf8Lossy(bytes, /*at_end=*/true, &out), bytes.size());
  return out;
}

TEST(tokenizer_utf8, AppendUtf8EncodesEachLength) {
  std::string out;
  for (char32_t cp : {U'A', U'\u00E9', U'\u4E2D', U'\U0001F600'}) AppendUtf8(cp, &out);
  EXPECT_EQ(out, "A\xC3\xA9\xE4\xB8\xAD\xF0\x9F\x98\x80");
}

TEST(tokenizer_utf8, NextCodepointRejectsIllFormed) {
  for (const std::string bad : {"\x80", "\xC0\xAF", "\xE0\x80\xAF", "\xED\xA0\x80", "\xF4\x90\x80\x80",
                                "\xF8\x88\x80\x80\x80", "\xE4\xB8", "\xC3"}) {
    size_t pos = 0;
    char32_t cp;
    EXPECT_FALSE(NextCodepoint(bad, &pos, &cp)) << bad.size();
    EXPECT_EQ(pos, 0u);
  }
  size_t pos = 0;
  char32_t cp = 0;
  ASSERT_TRUE(NextCodepoint("\xF4\x8F\xBF\xBF", &pos, &cp));
  EXPECT_EQ(cp, 0x10FFFFu);
  EXPECT_EQ(pos, 4u);
}

// The Unicode Standard's example of U+FFFD substitution of maximal subparts
// (chapter 3, "U+FFFD Substitution of Maximal Subparts", table 3-8).
TEST(tokenizer_utf8, LossyReplacesMaximalSubparts) {
  EXPECT_EQ(Lossy("\x61\xF1\x80\x80\xE1\x80\xC2\x62\x80\x63\x80\xBF\x64"),
            "a" + kFffd + kFffd + kFffd + "b" + kFffd + "c" + kFffd + kFffd + "d");
}

TEST(tokenizer_utf8, LossyReplacesEachByteOfNonShortestAndOutOfRangeForms) {
  EXPECT_EQ(Lossy("\xC0\xAF"), kFffd + kFffd);                  // overlong
  EXPECT_EQ(Lossy("\xE0\x80\xAF"), kFffd + kFffd + kFffd);      // overlong
  EXPECT_EQ(Lossy("\xED\xA0\x80"), kFffd + kFffd + kFffd);      // surrogate
  EXPECT_EQ(Lossy("\xF4\x90\x80\x80"), kFffd + kFffd + kFffd + kFffd);  // above U+10FFFF
  EXPECT_EQ(Lossy("\xF0\x9F\x98"), kFffd);                      // truncated at the end
  EXPECT_EQ(Lossy("ok \xC3\xA9"), "ok \xC3\xA9");
}

TEST(tokenizer_utf8, StreamingHoldsBackOnlyWhatCouldComplete) {
  std::string out;
  EXPECT_EQ(AppendUtf8Lossy("a\xF0\x9F", /*at_end=*/false, &out), 1u);
  EXPECT_EQ(out, "a");
  out.clear();
  EXPECT_EQ(AppendUtf8Lossy("\xF0\x9F\x98", false, &out), 0u);
  EXPECT_EQ(out, "");
  // A byte that breaks the sequence settles it at once.
  EXPECT_EQ(AppendUtf8Lossy("\xF0\x9F" "A", false, &out), 3u);
  EXPECT_EQ(out, kFffd + "A");
  out.clear();
  // Bytes that can never start a sequence are not held back.
  EXPECT_EQ(AppendUtf8Lossy("\xC0", false, &out), 1u);
  EXPECT_EQ(out, kFffd);
  out.clear();
  // E0 can only continue with A0..BF: E0 80 is already ill-formed.
  EXPECT_EQ(AppendUtf8Lossy("\xE0\x80", false, &out), 2u);
  EXPECT_EQ(out, kFffd + kFffd);
}

TEST(tokenizer_utf8, IsValidUtf8) {
  EXPECT_TRUE(IsValidUtf8(""));
  EXPECT_TRUE(IsValidUtf8("Hello, \xE4\xB8\x96\xE7\x95\x8C \xF0\x9F\x98\x80"));
  EXPECT_FALSE(IsValidUtf8("abc\xFF"));
  EXPECT_FALSE(IsValidUtf8("\xE4\xB8"));
}

}  // namespace
}  // namespace pagoda::tokenizer
