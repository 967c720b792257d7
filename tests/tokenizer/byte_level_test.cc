#include "pagoda/tokenizer/byte_level.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace pagoda::tokenizer {
namespace {

TEST(tokenizer_byte_level, MappingIsABijectionOntoPrintableCodepoints) {
  std::set<char32_t> seen;
  for (int b = 0; b < 256; ++b) {
    const char32_t cp = ByteToCodepoint(static_cast<uint8_t>(b));
    EXPECT_TRUE(seen.insert(cp).second) << "byte " << b;
    EXPECT_EQ(CodepointToByte(cp), static_cast<uint8_t>(b));
  }
  EXPECT_FALSE(CodepointToByte(U' ').has_value());
  EXPECT_FALSE(CodepointToByte(U'\n').has_value());
  EXPECT_FALSE(CodepointToByte(U'\u4E2D').has_value());
}

// Spellings every GPT-2-style vocabulary relies on.
TEST(tokenizer_byte_level, KnownSpellings) {
  EXPECT_EQ(ByteToCodepoint(' '), U'\u0120');   // Ġ
  EXPECT_EQ(ByteToCodepoint('\n'), U'\u010A');  // Ċ
  EXPECT_EQ(ByteToCodepoint('\t'), U'\u0109');  // ĉ
  EXPECT_EQ(ByteToCodepoint(0x00), U'\u0100');
  EXPECT_EQ(ByteToCodepoint(0x7F), U'\u0121');
  EXPECT_EQ(ByteToCodepoint(0xAD), U'\u0143');
  EXPECT_EQ(ByteToCodepoint('A'), U'A');
  EXPECT_EQ(ByteToCodepoint(0xE9), U'\u00E9');
}

TEST(tokenizer_byte_level, TextRoundTrip) {
  EXPECT_EQ(BytesToVocabText(" hello\n"), "\xC4\xA0hello\xC4\x8A");
  EXPECT_EQ(VocabTextToBytes("\xC4\xA0hello\xC4\x8A"), " hello\n");
  std::string all;
  for (int b = 0; b < 256; ++b) all.push_back(static_cast<char>(b));
  EXPECT_EQ(VocabTextToBytes(BytesToVocabText(all)), all);
  EXPECT_FALSE(VocabTextToBytes("\xE4\xB8\xAD").has_value());  // 中 is not a mapped code point
  EXPECT_FALSE(VocabTextToBytes("\xC4").has_value());          // not UTF-8
}

}  // namespace
}  // namespace pagoda::tokenizer
