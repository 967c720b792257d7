#include "pagoda/tokenizer/unicode_classes.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <gtest/gtest.h>
#include <pcre2.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <string>

#include "pagoda/tokenizer/utf8.h"
#include "test_data.h"

namespace pagoda::tokenizer {
namespace {

// A compiled pattern, widened by WithUnicode16GeneralCategories, with the
// pre-tokenizer's flags.
class Widened {
 public:
  explicit Widened(const std::string& pattern) {
    auto widened = WithUnicode16GeneralCategories(pattern);
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

std::string Utf8(char32_t c) {
  std::string text;
  AppendUtf8(c, &text);
  return text;
}

bool IsSurrogate(char32_t c) { return c >= 0xD800 && c <= 0xDFFF; }

// Whether `c` is in `ranges`, sorted [first, last] pairs, given that every
// code point before `c` was asked about first (`*next` walks along).
bool InRanges(const nlohmann::json& ranges, char32_t c, size_t* next) {
  while (*next < ranges.size() && ranges[*next][1].get<char32_t>() < c) ++*next;
  return *next < ranges.size() && ranges[*next][0].get<char32_t>() <= c;
}

// The categories the pre-tokenizers use, each as a bare \p{X} and inside a
// negated class, against Hugging Face tokenizers' regex engine on every code
// point (make_hf_categories.py): PCRE2's own tables, ICU's and the Unicode
// 16.0 additions together must give exactly HF's sets. Without the
// additions, \p{L} alone misses over 4,000 letters, and ICU 72 misses
// Unicode 16.0's.
TEST(tokenizer_unicode_classes, CategoriesMatchHuggingFaceOnEveryCodePoint) {
  std::ifstream file(testing::FixturePath("hf_general_categories.json"));
  ASSERT_TRUE(file) << "missing hf_general_categories.json";
  const nlohmann::json categories = nlohmann::json::parse(file)["categories"];
  ASSERT_EQ(categories.size(), 10u);
  for (const auto& [name, ranges] : categories.items()) {
    const Widened bare("\\p{" + name + "}");
    const Widened negated("[^\\r\\p{" + name + "}]");
    size_t next = 0;
    int mismatches = 0;
    for (char32_t c = 0; c <= 0x10FFFF; ++c) {
      if (IsSurrogate(c)) continue;
      const bool hf = InRanges(ranges, c, &next);
      const std::string text = Utf8(c);
      if ((bare.MatchesAll(text) != hf || negated.MatchesAll(text) == (hf || c == '\r')) && ++mismatches <= 5) {
        ADD_FAILURE() << "\\p{" << name << "} and HF disagree on U+" << std::hex << static_cast<uint32_t>(c);
      }
    }
    EXPECT_EQ(mismatches, 0) << "\\p{" << name << "}";
  }
}

TEST(tokenizer_unicode_classes, NewerSymbolsAreSymbolsEverywhere) {
  const std::string goose = "\xF0\x9F\xAA\xBF";  // U+1FABF, new in Unicode 15.0
  EXPECT_TRUE(Widened("\\p{S}").MatchesAll(goose));
  EXPECT_TRUE(Widened("[\\p{P}\\p{S}]+").MatchesAll("!" + goose));
  EXPECT_FALSE(Widened("[^\\r\\n\\p{L}\\p{P}\\p{S}]").MatchesAll(goose));
  const std::string arrow = "\xF0\x9F\xA2\xB3";  // U+1F8B3, new in Unicode 16.0: ICU 72 lacks it
  EXPECT_TRUE(Widened("\\p{S}").MatchesAll(arrow));
  EXPECT_FALSE(Widened("[^\\r\\n\\p{L}\\p{P}\\p{S}]").MatchesAll(arrow));
  // Escaped brackets neither open nor close a class.
  EXPECT_TRUE(Widened("\\[\\p{S}").MatchesAll("[" + goose));
  EXPECT_TRUE(Widened("[\\]]\\p{S}").MatchesAll("]" + goose));
}

// PCRE2 matches its own \p{L} much faster than a list of all of ICU's ~650
// ranges of letters (some 13 KB of pattern): only the newer ones are added.
TEST(tokenizer_unicode_classes, AddsOnlyWhatPcre2Lacks) {
  const auto letters = WithUnicode16GeneralCategories("\\p{L}");
  ASSERT_TRUE(letters.ok());
  EXPECT_LT(letters->size(), 1000u) << *letters;
  EXPECT_EQ(letters->find("\\x{41}"), std::string::npos) << *letters;
}

TEST(tokenizer_unicode_classes, LeavesTheRestOfThePatternAlone) {
  const std::string pattern = "[A-Z\\x{4E00}-\\x{9FA5}]+|\\s+(?!\\S)|\\\\p{L}";
  EXPECT_EQ(*WithUnicode16GeneralCategories(pattern), pattern);
}

TEST(tokenizer_unicode_classes, OnlyGeneralCategories) {
  EXPECT_EQ(WithUnicode16GeneralCategories("\\p{Greek}").status().code(), StatusCode::kInternal);
  EXPECT_EQ(WithUnicode16GeneralCategories("\\p{L").status().code(), StatusCode::kInternal);
}

}  // namespace
}  // namespace pagoda::tokenizer
