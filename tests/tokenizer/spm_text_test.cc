#include "pagoda/tokenizer/spm_text.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace pagoda::tokenizer {
namespace {

const std::string kSpace = "\xE2\x96\x81";  // U+2581

TEST(tokenizer_spm_text, EscapesOnlyTheSpaceCharacter) {
  std::string out = "x";
  AppendEscapedSpaces(" a  b\t\n", &out);
  EXPECT_EQ(out, "x" + kSpace + "a" + kSpace + kSpace + "b\t\n");
}

TEST(tokenizer_spm_text, NormalPiecesUnescapeSpaces) {
  EXPECT_EQ(SpmTokenPiece(kSpace + "the" + kSpace, TokenType::kNormal), " the ");
  EXPECT_EQ(SpmTokenPiece("\xE4\xB8\xAD", TokenType::kNormal), "\xE4\xB8\xAD");
}

TEST(tokenizer_spm_text, ByteTokensAreTheirByte) {
  for (int b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof(name), "<0x%02X>", b);
    EXPECT_EQ(SpmTokenPiece(name, TokenType::kByte), std::string(1, static_cast<char>(b))) << name;
  }
  // Not of the <0xXX> form (lowercase hex included): the text as is.
  EXPECT_EQ(SpmTokenPiece("<0xab>", TokenType::kByte), "<0xab>");
  EXPECT_EQ(SpmTokenPiece("<0x1>", TokenType::kByte), "<0x1>");
}

TEST(tokenizer_spm_text, AddedTokensKeepTheirText) {
  for (TokenType type : {TokenType::kControl, TokenType::kUnknown, TokenType::kUserDefined}) {
    EXPECT_EQ(SpmTokenPiece("<s>" + kSpace, type), "<s>" + kSpace);
  }
}

}  // namespace
}  // namespace pagoda::tokenizer
