#include "pagoda/tokenizer/unicode_classes.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <gtest/gtest.h>
#include <pcre2.h>
#include <unicode/uchar.h>
#include <unicode/utf8.h>

#include <string>

namespace pagoda::tokenizer {
namespace {

// A compiled pattern, widened by WithIcuGeneralCategories, with the
// pre-tokenizer's flags.
class Widened {
 public:
  explicit Widened(const std::string& pattern) {
    auto widened = WithIcuGeneralCategories(pattern);
    EXPECT_TRUE(widened.ok()) << widened.status().ToString();
    int error = 0;
    PCRE2_SIZE offset = 0;
    code_ = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(widened->data()), widened->size(), PCRE2_UTF | PCRE2_UCP,
                          &error, &offset, nullptr);
    EXPECT_NE(code_, nullptr) << "does not compile: " << *widened;
    pcre2_jit_compile(code_, PCRE2_JIT_COMPLETE);
    match_ = pcre2_match_data_create(1, nullptr);
  }
  ~Widened() {
    pcre2_match_data_free(match_);
    pcre2_code_free(code_);
  }

  // Whether the pattern matches all of `text` (anchored at its start).
  bool MatchesAll(std::string_view text) const {
    return pcre2_match(code_, reinterpret_cast<PCRE2_SPTR>(text.data()), text.size(), 0, PCRE2_ANCHORED, match_,
                       nullptr) > 0 &&
           pcre2_get_ovector_pointer(match_)[1] == text.size();
  }

 private:
  pcre2_code* code_ = nullptr;
  pcre2_match_data* match_ = nullptr;
};

std::string Utf8(UChar32 c) {
  char bytes[U8_MAX_LENGTH];
  int32_t length = 0;
  U8_APPEND_UNSAFE(bytes, length, c);
  return std::string(bytes, length);
}

// The categories the pre-tokenizers use, each as a bare \p{X} and inside a
// negated class, against ICU on every code point: PCRE2's own tables must
// agree with ICU on the code points they know, and the added ones fill in
// the rest (without them, \p{L} alone misses over 4,000 of ICU 72's letters).
TEST(tokenizer_unicode_classes, CategoriesMatchIcuOnEveryCodePoint) {
  for (const char* name : {"L", "Lu", "Ll", "Lt", "Lm", "Lo", "M", "N", "P", "S"}) {
    const int32_t mask = u_getPropertyValueEnum(UCHAR_GENERAL_CATEGORY_MASK, name);
    const Widened bare(std::string("\\p{") + name + "}");
    const Widened negated(std::string("[^\\r\\p{") + name + "}]");
    int mismatches = 0;
    for (UChar32 c = 0; c <= 0x10FFFF; ++c) {
      if (U_IS_SURROGATE(c)) continue;
      const bool icu = (U_GET_GC_MASK(c) & mask) != 0;
      const std::string text = Utf8(c);
      if ((bare.MatchesAll(text) != icu || negated.MatchesAll(text) == (icu || c == '\r')) && ++mismatches <= 5) {
        ADD_FAILURE() << "\\p{" << name << "} and ICU disagree on U+" << std::hex << c;
      }
    }
    EXPECT_EQ(mismatches, 0) << "\\p{" << name << "}";
  }
}

TEST(tokenizer_unicode_classes, UnicodeFifteenSymbolIsASymbolEverywhere) {
  const std::string goose = "\xF0\x9F\xAA\xBF";  // U+1FABF, new in Unicode 15.0
  EXPECT_TRUE(Widened("\\p{S}").MatchesAll(goose));
  EXPECT_TRUE(Widened("[\\p{P}\\p{S}]+").MatchesAll("!" + goose));
  EXPECT_FALSE(Widened("[^\\r\\n\\p{L}\\p{P}\\p{S}]").MatchesAll(goose));
  // Escaped brackets neither open nor close a class.
  EXPECT_TRUE(Widened("\\[\\p{S}").MatchesAll("[" + goose));
  EXPECT_TRUE(Widened("[\\]]\\p{S}").MatchesAll("]" + goose));
}

// PCRE2 matches its own \p{L} much faster than a list of all of ICU's ~650
// ranges of letters (some 13 KB of pattern): only the newer ones are added.
TEST(tokenizer_unicode_classes, AddsOnlyWhatPcre2Lacks) {
  const auto letters = WithIcuGeneralCategories("\\p{L}");
  ASSERT_TRUE(letters.ok());
  EXPECT_LT(letters->size(), 1000u) << *letters;
  EXPECT_EQ(letters->find("\\x{41}"), std::string::npos) << *letters;
}

TEST(tokenizer_unicode_classes, LeavesTheRestOfThePatternAlone) {
  const std::string pattern = "[A-Z\\x{4E00}-\\x{9FA5}]+|\\s+(?!\\S)|\\\\p{L}";
  EXPECT_EQ(*WithIcuGeneralCategories(pattern), pattern);
}

TEST(tokenizer_unicode_classes, OnlyGeneralCategories) {
  EXPECT_EQ(WithIcuGeneralCategories("\\p{Greek}").status().code(), StatusCode::kInternal);
  EXPECT_EQ(WithIcuGeneralCategories("\\p{L").status().code(), StatusCode::kInternal);
}

}  // namespace
}  // namespace pagoda::tokenizer
