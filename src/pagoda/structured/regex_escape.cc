#include "pagoda/structured/regex_escape.h"

#include <string>
#include <string_view>

namespace pagoda::structured {
namespace {

constexpr char32_t kHighSurrogateFirst = 0xD800;
constexpr char32_t kLowSurrogateFirst = 0xDC00;
constexpr char32_t kSurrogateLast = 0xDFFF;

bool IsAsciiAlnum(char32_t c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

int HexValue(char32_t c) {
  if (c >= '0' && c <= '9') return static_cast<int>(c - '0');
  if (c >= 'a' && c <= 'f') return static_cast<int>(c - 'a' + 10);
  if (c >= 'A' && c <= 'F') return static_cast<int>(c - 'A' + 10);
  return -1;
}

Status Incomplete(const RegexScanner& scanner, size_t begin) {
  const std::string spelling = scanner.Spelling(begin);
  return RegexScanner::Malformed(begin, "incomplete escape '" + spelling + "'");
}

// Reads up to `max_digits` hex digits; fewer than `min_digits` is an
// incomplete escape (that began at byte `begin`).
StatusOr<char32_t> ReadHex(RegexScanner& scanner, int min_digits, int max_digits, size_t begin) {
  char32_t value = 0;
  int digits = 0;
  while (digits < max_digits && HexValue(scanner.Peek()) >= 0) {
    value = value * 16 + static_cast<char32_t>(HexValue(scanner.Next()));
    ++digits;
  }
  if (digits < min_digits) return Incomplete(scanner, begin);
  return value;
}

// \uHHHH or \u{H...}, the 'u' consumed.
StatusOr<char32_t> ReadUnicodeEscape(RegexScanner& scanner, size_t begin) {
  if (!scanner.Consume('{')) return ReadHex(scanner, 4, 4, begin);
  PAGODA_ASSIGN_OR_RETURN(const char32_t value, ReadHex(scanner, 1, 6, begin));
  if (!scanner.Consume('}')) return Incomplete(scanner, begin);
  return value;
}

// A high surrogate escape followed by a low one is one code point, as in
// ECMAScript's unicode mode; a surrogate alone spells no UTF-8 text.
StatusOr<char32_t> JoinSurrogates(RegexScanner& scanner, char32_t high, size_t begin) {
  const size_t after_high = scanner.position();
  if (high < kLowSurrogateFirst && scanner.Consume('\\') && scanner.Consume('u')) {
    const auto low = ReadHex(scanner, 4, 4, begin);
    if (low.ok() && *low >= kLowSurrogateFirst && *low <= kSurrogateLast) {
      return 0x10000 + ((high - kHighSurrogateFirst) << 10) + (*low - kLowSurrogateFirst);
    }
  }
  scanner.Rewind(after_high);
  const std::string spelling = scanner.Spelling(begin);
  return RegexScanner::Malformed(begin, "unpaired surrogate '" + spelling + "'");
}

// The code point of \x, \u or \U escapes (the letter consumed).
StatusOr<char32_t> ReadCodePointEscape(RegexScanner& scanner, char32_t letter, size_t begin) {
  char32_t value = 0;
  if (letter == 'x') {
    PAGODA_ASSIGN_OR_RETURN(value, ReadHex(scanner, 2, 2, begin));
  } else if (letter == 'u') {
    PAGODA_ASSIGN_OR_RETURN(value, ReadUnicodeEscape(scanner, begin));
  } else {
    PAGODA_ASSIGN_OR_RETURN(value, ReadHex(scanner, 8, 8, begin));
  }
  if (value > kMaxCodePoint) {
    const std::string spelling = scanner.Spelling(begin);
    return RegexScanner::Malformed(begin, "code point out of range '" + spelling + "'");
  }
  if (value >= kHighSurrogateFirst && value <= kSurrogateLast) return JoinSurrogates(scanner, value, begin);
  return value;
}

// \d \w \s (ASCII), or their complements for \D \W \S.
CodePointRanges AsciiClass(char32_t letter) {
  CodePointRanges ranges;
  switch (letter | 0x20) {  // lower case
    case 'd':
      ranges = {{'0', '9'}};
      break;
    case 'w':
      ranges = {{'0', '9'}, {'A', 'Z'}, {'_', '_'}, {'a', 'z'}};
      break;
    default:  // 's': space, \t \n \v \f \r
      ranges = {{'\t', '\r'}, {' ', ' '}};
      break;
  }
  return letter >= 'a' ? ranges : Complement(ranges);
}

// \n \t \r \f \v and \a: the character, or 0 for any other letter.
char32_t ControlCharacter(char32_t letter) {
  switch (letter) {
    case 'n':
      return '\n';
    case 't':
      return '\t';
    case 'r':
      return '\r';
    case 'f':
      return '\f';
    case 'v':
      return '\v';
    case 'a':
      return '\a';
    default:
      return 0;
  }
}

RegexEscape CodePoint(char32_t c) { return RegexEscape{false, c, {}}; }

// \0 and up to two more octal digits, as Python reads it.
RegexEscape Octal(RegexScanner& scanner) {
  char32_t value = 0;
  for (int i = 0; i < 2 && scanner.Peek() >= '0' && scanner.Peek() <= '7'; ++i) {
    value = value * 8 + (scanner.Next() - '0');
  }
  return CodePoint(value);
}

// The escapes that name no character: refused with what they are.
Status Refusal(RegexScanner& scanner, char32_t letter, size_t begin) {
  if (letter >= '1' && letter <= '9') {
    while (scanner.Peek() >= '0' && scanner.Peek() <= '9') scanner.Next();
    const std::string spelling = scanner.Spelling(begin);
    return RegexScanner::Unsupported(begin, "backreference '" + spelling + "'");
  }
  const std::string spelling = scanner.Spelling(begin);
  switch (letter) {
    case 'k':
      return RegexScanner::Unsupported(begin, "named backreference '" + spelling + "'");
    case 'b':
    case 'B':
      return RegexScanner::Unsupported(begin, "word boundary '" + spelling + "'");
    case 'A':
    case 'Z':
    case 'z':
    case 'G':
      return RegexScanner::Unsupported(begin, "anchor '" + spelling + "' (only a leading ^ and a trailing $ are)");
    case 'p':
    case 'P':
      return RegexScanner::Unsupported(begin, "Unicode property class '" + spelling + "'");
    case 'N':
      return RegexScanner::Unsupported(begin, "named character '" + spelling + "'");
    default:
      return RegexScanner::Malformed(begin, "unknown escape '" + spelling + "'");
  }
}

}  // namespace

StatusOr<RegexEscape> ParseEscape(RegexScanner& scanner, bool in_class) {
  const size_t begin = scanner.offset();
  scanner.Next();  // the backslash
  const char32_t letter = scanner.Next();
  if (letter == RegexScanner::kEnd) return RegexScanner::Malformed(begin, "trailing backslash");
  if (std::u32string_view(U"dDwWsS").find(letter) != std::u32string_view::npos) {
    return RegexEscape{true, 0, AsciiClass(letter)};
  }
  if (const char32_t control = ControlCharacter(letter)) return CodePoint(control);
  if (letter == '0') return Octal(scanner);
  if (letter == 'x' || letter == 'u' || letter == 'U') {
    PAGODA_ASSIGN_OR_RETURN(const char32_t c, ReadCodePointEscape(scanner, letter, begin));
    return CodePoint(c);
  }
  if (letter == 'b' && in_class) return CodePoint('\b');
  if (!IsAsciiAlnum(letter)) return CodePoint(letter);  // an escaped metacharacter or any other symbol
  return Refusal(scanner, letter, begin);
}

}  // namespace pagoda::structured
