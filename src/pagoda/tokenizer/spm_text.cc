#include "pagoda/tokenizer/spm_text.h"

namespace pagoda::tokenizer {
namespace {

constexpr std::string_view kSpace = "\xE2\x96\x81";  // U+2581

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

void AppendEscapedSpaces(std::string_view text, std::string* out) {
  for (char c : text) {
    if (c == ' ') {
      *out += kSpace;
    } else {
      out->push_back(c);
    }
  }
}

std::string SpmTokenPiece(const std::string& text, TokenType type) {
  switch (type) {
    case TokenType::kControl:
    case TokenType::kUnknown:
    case TokenType::kUserDefined:
      return text;
    case TokenType::kByte: {
      // A byte token that is not named <0xXX> keeps its text, as Hugging
      // Face's ByteFallback decoder leaves it.
      const int hi = text.size() == 6 && text.starts_with("<0x") && text[5] == '>' ? HexDigit(text[3]) : -1;
      const int lo = hi >= 0 ? HexDigit(text[4]) : -1;
      if (lo < 0) return text;
      return std::string(1, static_cast<char>(hi * 16 + lo));
    }
    default:
      break;
  }
  std::string piece;
  piece.reserve(text.size());
  for (size_t pos = 0; pos < text.size();) {
    if (text.compare(pos, kSpace.size(), kSpace) == 0) {
      piece.push_back(' ');
      pos += kSpace.size();
    } else {
      piece.push_back(text[pos++]);
    }
  }
  return piece;
}

}  // namespace pagoda::tokenizer
