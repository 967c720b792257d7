#include "pagoda/structured/lark_lexer.h"

#include <cstdint>
#include <cstdio>

namespace pagoda::structured {
namespace {

constexpr int kEnd = -1;

bool IsNameStart(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool IsNameChar(int c) { return IsNameStart(c) || (c >= '0' && c <= '9'); }
bool IsDigit(int c) { return c >= '0' && c <= '9'; }

// The length of the strictly valid UTF-8 sequence at `at` (no overlong
// forms, surrogates or values past U+10FFFF), 0 if there is none.
size_t Utf8Length(std::string_view text, size_t at) {
  const auto lead = static_cast<uint8_t>(text[at]);
  if (lead < 0x80) return 1;
  size_t length;
  uint32_t c;
  uint32_t min;
  if ((lead & 0xE0) == 0xC0) {
    length = 2, c = lead & 0x1F, min = 0x80;
  } else if ((lead & 0xF0) == 0xE0) {
    length = 3, c = lead & 0x0F, min = 0x800;
  } else if ((lead & 0xF8) == 0xF0) {
    length = 4, c = lead & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  if (at + length > text.size()) return 0;
  for (size_t i = 1; i < length; ++i) {
    const auto next = static_cast<uint8_t>(text[at + i]);
    if ((next & 0xC0) != 0x80) return 0;
    c = (c << 6) | (next & 0x3F);
  }
  if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return 0;
  return length;
}

// A character for messages: 'a', or U+00E9.
std::string Describe(std::string_view text, size_t at) {
  if (at >= text.size()) return "the end of the grammar";
  const auto c = static_cast<uint8_t>(text[at]);
  if (c >= 0x21 && c < 0x7F) return std::string("'") + static_cast<char>(c) + "'";
  uint32_t value = c;
  if (const size_t length = Utf8Length(text, at); length > 1) {
    value = c & (0xFF >> (length + 1));
    for (size_t i = 1; i < length; ++i) value = (value << 6) | (static_cast<uint8_t>(text[at + i]) & 0x3F);
  }
  char buffer[16];
  std::snprintf(buffer, sizeof(buffer), "U+%04X", value);
  return buffer;
}

class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {}

  StatusOr<std::vector<LarkToken>> Run() {
    PAGODA_RETURN_IF_ERROR(CheckUtf8());
    for (;;) {
      const int c = Peek();
      if (c == kEnd) break;
      if (c == ' ' || c == '\t') {
        Advance();
        touches_ = false;
      } else if (c == '\\' && AtContinuation()) {
        while (Peek() != '\n') Advance();
        Advance();
        touches_ = false;
      } else if (AtComment()) {
        SkipComment();
        touches_ = false;
      } else if (c == '\n' || (c == '\r' && Peek(1) == '\n')) {
        NewlineRun();
      } else {
        PAGODA_RETURN_IF_ERROR(Token());
      }
    }
    Push(LarkToken::Kind::kEnd, pos_);
    return std::move(tokens_);
  }

 private:
  int Peek(size_t ahead = 0) const {
    return pos_ + ahead < text_.size() ? static_cast<uint8_t>(text_[pos_ + ahead]) : kEnd;
  }

  // Moves past one byte; columns count code points (continuation bytes do
  // not move them).
  void Advance() {
    const int c = Peek();
    if (c == kEnd) return;
    ++pos_;
    if (c == '\n') {
      ++line_;
      column_ = 1;
    } else if ((c & 0xC0) != 0x80) {
      ++column_;
    }
  }

  LarkPosition Position() const { return {line_, column_}; }

  // The whole text is UTF-8, so that every later step may count columns
  // by lead bytes.
  Status CheckUtf8() {
    const size_t start = pos_;
    while (pos_ < text_.size()) {
      const size_t length = Utf8Length(text_, pos_);
      if (length == 0) {
        char buffer[8];
        std::snprintf(buffer, sizeof(buffer), "%02X", static_cast<uint8_t>(text_[pos_]));
        const Status error = LarkError(Position(), std::string("invalid UTF-8 (byte 0x") + buffer + ")");
        return error;
      }
      for (size_t i = 0; i < length; ++i) Advance();
    }
    pos_ = start;
    line_ = 1;
    column_ = 1;
    return Status::Ok();
  }

  // A backslash, spaces, then the line's end: the line goes on.
  bool AtContinuation() const {
    size_t at = pos_ + 1;
    while (at < text_.size() && text_[at] == ' ') ++at;
    if (at < text_.size() && text_[at] == '\r') ++at;
    return at < text_.size() && text_[at] == '\n';
  }

  bool AtComment() const { return Peek() == '#' || (Peek() == '/' && Peek(1) == '/'); }

  void SkipComment() {
    while (Peek() != kEnd && Peek() != '\n' && !(Peek() == '\r' && Peek(1) == '\n')) Advance();
  }

  // Newlines, with the blanks, empty lines and comment lines after them:
  // one newline token, or none when the next line begins with '|'.
  void NewlineRun() {
    const LarkPosition at = Position();
    for (;;) {
      const int c = Peek();
      if (c == ' ' || c == '\t' || c == '\n') {
        Advance();
      } else if (c == '\r' && Peek(1) == '\n') {
        Advance();
      } else if (AtComment()) {
        SkipComment();
      } else {
        break;
      }
    }
    touches_ = false;
    if (Peek() == '|') return;
    if (!tokens_.empty() && tokens_.back().kind != LarkToken::Kind::kNewline) {
      tokens_.push_back({LarkToken::Kind::kNewline, text_.substr(0, 0), at, false});
    }
  }

  void Push(LarkToken::Kind kind, size_t start, LarkPosition at) {
    tokens_.push_back({kind, text_.substr(start, pos_ - start), at, touches_});
    touches_ = true;
  }
  void Push(LarkToken::Kind kind, size_t start) { Push(kind, start, Position()); }

  Status Token() {
    const LarkPosition at = Position();
    const size_t start = pos_;
    const int c = Peek();
    if (IsNameStart(c)) {
      while (IsNameChar(Peek())) Advance();
      Push(LarkToken::Kind::kName, start, at);
      return Status::Ok();
    }
    if (IsDigit(c)) {
      while (IsDigit(Peek())) Advance();
      Push(LarkToken::Kind::kNumber, start, at);
      return Status::Ok();
    }
    if (c == '"') return String(at);
    if (c == '/') return Regex(at);
    if (c == '%') {
      Advance();
      if (!IsNameStart(Peek())) return LarkError(at, "'%' must begin a directive such as '%import' or '%ignore'");
      while (IsNameChar(Peek())) Advance();
      Push(LarkToken::Kind::kDirective, start, at);
      return Status::Ok();
    }
    if (text_.substr(pos_, 3) == "::=") {
      Advance(), Advance(), Advance();
      Push(LarkToken::Kind::kPunct, start, at);
      return Status::Ok();
    }
    if (text_.substr(pos_, 2) == ".." || text_.substr(pos_, 2) == "->") {
      Advance(), Advance();
      Push(LarkToken::Kind::kPunct, start, at);
      return Status::Ok();
    }
    if (c != kEnd && std::string_view(":|()[]{},~.*+?!-").find(static_cast<char>(c)) != std::string_view::npos) {
      Advance();
      Push(LarkToken::Kind::kPunct, start, at);
      return Status::Ok();
    }
    if (c == '\r') return LarkError(at, "a carriage return (U+000D) must be followed by a line feed");
    if (c == '\'') return LarkError(at, "string literals use double quotes (\"...\"), not single ones");
    return LarkError(at, "unexpected " + Describe(text_, pos_));
  }

  // "..." on one line: \" and \\ do not end it. An `i` right after the
  // closing quote is its flag.
  Status String(LarkPosition at) {
    const size_t start = pos_;
    Advance();
    for (;;) {
      const int c = Peek();
      if (c == kEnd || c == '\n' || (c == '\r' && Peek(1) == '\n')) {
        return LarkError(at, "string literal is not closed on its line (write \\n for a newline)");
      }
      if (c == '"') break;
      if (c == '\\' && (Peek(1) == '"' || Peek(1) == '\\')) Advance();
      Advance();
    }
    Advance();
    if (Peek() == 'i') Advance();
    Push(LarkToken::Kind::kString, start, at);
    return Status::Ok();
  }

  // /.../ on one line (Lark takes newlines only with the `x` flag, which
  // is not supported): \/ and \\ do not end it. Flags follow the closing
  // slash.
  Status Regex(LarkPosition at) {
    const size_t start = pos_;
    Advance();
    for (;;) {
      const int c = Peek();
      if (c == kEnd || c == '\n' || (c == '\r' && Peek(1) == '\n')) {
        return LarkError(at, "regular expression is not closed on its line");
      }
      if (c == '/') break;
      if (c == '\\' && (Peek(1) == '/' || Peek(1) == '\\')) Advance();
      Advance();
    }
    Advance();
    while (Peek() != kEnd && std::string_view("imslux").find(static_cast<char>(Peek())) != std::string_view::npos) {
      Advance();
    }
    Push(LarkToken::Kind::kRegex, start, at);
    return Status::Ok();
  }

  std::string_view text_;
  size_t pos_ = 0;
  int line_ = 1;
  int column_ = 1;
  bool touches_ = false;
  std::vector<LarkToken> tokens_;
};

}  // namespace

Status LarkError(LarkPosition position, const std::string& what) {
  return InvalidArgumentError("lark: line " + std::to_string(position.line) + ", column " +
                              std::to_string(position.column) + ": " + what);
}

std::string LarkExcerpt(std::string_view spelling) {
  constexpr int kMaxCodePoints = 60;
  int code_points = 0;
  for (size_t i = 0; i < spelling.size(); ++i) {
    // Tokens are valid UTF-8 by now: a code point starts at each non-continuation byte.
    if ((static_cast<uint8_t>(spelling[i]) & 0xC0) != 0x80 && code_points++ == kMaxCodePoints) {
      return std::string(spelling.substr(0, i)) + "...";
    }
  }
  return std::string(spelling);
}

StatusOr<std::vector<LarkToken>> LexLark(std::string_view text) { return Lexer(text).Run(); }

}  // namespace pagoda::structured
