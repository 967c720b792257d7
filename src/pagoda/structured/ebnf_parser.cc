#include "pagoda/structured/ebnf_parser.h"

#include <array>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <utility>

#include "pagoda/structured/utf8_ranges.h"

namespace pagoda::structured {
namespace {

constexpr int kEnd = -1;  // Peek past the end of the text

bool IsNameStart(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '-'; }
bool IsNameChar(int c) { return IsNameStart(c) || (c >= '0' && c <= '9'); }
bool IsDigit(int c) { return c >= '0' && c <= '9'; }

int HexValue(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool IsSurrogate(char32_t c) { return c >= 0xD800 && c <= 0xDFFF; }

std::string Hex(uint32_t value, int digits) {
  char buffer[16];
  std::snprintf(buffer, sizeof(buffer), "%0*X", digits, value);
  return buffer;
}

void AppendUtf8(char32_t c, std::string* out) {
  if (c < 0x80) {
    out->push_back(static_cast<char>(c));
  } else if (c < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (c >> 6)));
    out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else if (c < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (c >> 12)));
    out->push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (c >> 18)));
    out->push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
  }
}

// The code point a character is, for messages: 'a', or U+00E9.
std::string Describe(char32_t c) {
  if (c >= 0x21 && c < 0x7F) return std::string("'") + static_cast<char>(c) + "'";
  return "U+" + Hex(c, 4);
}

// What `\c` stands for, in strings and classes alike, when it is one of the
// C-style escapes.
std::optional<char32_t> SimpleEscape(int c) {
  switch (c) {
    case 'n': return U'\n';
    case 't': return U'\t';
    case 'r': return U'\r';
    case 'a': return U'\a';
    case 'b': return U'\b';
    case 'f': return U'\f';
    case 'v': return U'\v';
    case 'e': return char32_t{0x1B};
    case '0': return char32_t{0};
    case '\\':
    case '"':
    case '\'':
    case '?':
    case '/': return static_cast<char32_t>(c);
    default: return std::nullopt;
  }
}

// xgrammar's macros: function-like extensions that this dialect lacks.
constexpr std::array<std::string_view, 6> kMacros = {"TagDispatch", "TokenTagDispatch", "Regex", "Substring",
                                                     "Token",       "ExcludeToken"};

class Parser {
 public:
  Parser(std::string_view text, const EbnfOptions& options) : text_(text), options_(options) {}

  StatusOr<EbnfSyntax> Run() {
    SkipSpace();
    while (Peek() != kEnd) PAGODA_RETURN_IF_ERROR(ParseRule());
    return std::move(syntax_);
  }

 private:
  // ---- Characters and positions.

  int Peek(size_t ahead = 0) const {
    return pos_ + ahead < text_.size() ? static_cast<uint8_t>(text_[pos_ + ahead]) : kEnd;
  }

  EbnfPosition Position() const { return {line_, column_}; }

  // Moves past one byte. "\n", "\r\n" and a lone "\r" end a line; columns
  // count code points (continuation bytes do not move them).
  void Advance() {
    const int c = Peek();
    if (c == kEnd) return;
    ++pos_;
    if (c == '\n' || (c == '\r' && Peek() != '\n')) {
      ++line_;
      column_ = 1;
    } else if ((c & 0xC0) != 0x80) {
      ++column_;
    }
  }

  void Advance(size_t count) {
    for (size_t i = 0; i < count; ++i) Advance();
  }

  bool LookingAt(std::string_view s) const { return text_.substr(pos_, s.size()) == s; }

  // Whitespace, newlines and # comments.
  void SkipSpace() {
    for (;;) {
      const int c = Peek();
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        Advance();
      } else if (c == '#') {
        while (Peek() != kEnd && Peek() != '\n' && Peek() != '\r') Advance();
      } else {
        return;
      }
    }
  }

  // Where SkipSpace would stop, without moving.
  size_t AfterSpace(size_t at) const {
    while (at < text_.size()) {
      const char c = text_[at];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        ++at;
      } else if (c == '#') {
        while (at < text_.size() && text_[at] != '\n' && text_[at] != '\r') ++at;
      } else {
        break;
      }
    }
    return at;
  }

  // After spaces and tabs only, on the same line.
  size_t AfterBlanks(size_t at) const {
    while (at < text_.size() && (text_[at] == ' ' || text_[at] == '\t')) ++at;
    return at;
  }

  size_t NameEnd(size_t at) const {
    while (at < text_.size() && IsNameChar(static_cast<uint8_t>(text_[at]))) ++at;
    return at;
  }

  // Only spaces and tabs stand between the line's start and `at`.
  bool StartsLine(size_t at) const {
    while (at > 0 && (text_[at - 1] == ' ' || text_[at - 1] == '\t')) --at;
    return at == 0 || text_[at - 1] == '\n' || text_[at - 1] == '\r';
  }

  // A name followed by "::=" (or by xgrammar's rule options "[...] ::="):
  // the next rule begins here.
  bool AtRuleStart() const {
    if (!IsNameStart(Peek())) return false;
    const size_t end = NameEnd(pos_);
    return text_.substr(AfterSpace(end), 3) == "::=" || HasRuleOptions(end);
  }

  // `name_end` is followed by "[...]" on the same line, then "::=".
  bool HasRuleOptions(size_t name_end) const {
    if (name_end >= text_.size() || text_[name_end] != '[') return false;
    const size_t close = text_.find_first_of("]\n\r", name_end);
    return close != std::string_view::npos && text_[close] == ']' && text_.substr(AfterBlanks(close + 1), 3) == "::=";
  }

  // One strictly valid UTF-8 code point at the cursor (no overlong forms,
  // surrogates or values past U+10FFFF), and its length; nullopt if none.
  std::optional<std::pair<char32_t, size_t>> DecodeUtf8() const {
    const int lead = Peek();
    if (lead == kEnd) return std::nullopt;
    if (lead < 0x80) return std::pair<char32_t, size_t>{static_cast<char32_t>(lead), 1};
    size_t length;
    char32_t c;
    char32_t min;
    if ((lead & 0xE0) == 0xC0) {
      length = 2, c = lead & 0x1F, min = 0x80;
    } else if ((lead & 0xF0) == 0xE0) {
      length = 3, c = lead & 0x0F, min = 0x800;
    } else if ((lead & 0xF8) == 0xF0) {
      length = 4, c = lead & 0x07, min = 0x10000;
    } else {
      return std::nullopt;
    }
    for (size_t i = 1; i < length; ++i) {
      const int next = Peek(i);
      if (next == kEnd || (next & 0xC0) != 0x80) return std::nullopt;
      c = (c << 6) | (next & 0x3F);
    }
    if (c < min || c > kMaxCodePoint || IsSurrogate(c)) return std::nullopt;
    return std::pair<char32_t, size_t>{c, length};
  }

  Status InvalidUtf8() const { return EbnfError(Position(), "invalid UTF-8 (byte 0x" + Hex(Peek(), 2) + ")"); }

  // ---- Rules.

  Status ParseRule() {
    const EbnfPosition start = Position();
    const int c = Peek();
    if ((c == '?' || c == '!') && IsNameStart(Peek(1))) {
      return LarkError(start, std::string(text_.substr(pos_, NameEnd(pos_ + 1) - pos_)));
    }
    if (c == '%') return LarkError(start, std::string(text_.substr(pos_, NameEnd(pos_ + 1) - pos_)));
    if (IsDigit(c)) return EbnfError(start, "a rule name cannot start with a digit");
    if (!IsNameStart(c)) {
      if (LookingAt("::=")) return EbnfError(start, "'::=' without a rule name before it");
      return EbnfError(start, "expected a rule ('name ::= ...'), found " + DescribeHere());
    }
    const size_t name_start = pos_;
    const size_t name_end = NameEnd(pos_);
    std::string name(text_.substr(name_start, name_end - name_start));
    Advance(name_end - name_start);
    if (HasRuleOptions(pos_)) {
      return EbnfError(start, "rule options such as '" + name + "[...]' (an xgrammar extension) are not supported");
    }
    if (Peek() == '.') {
      return EbnfError(start, "rule names cannot contain '.' (here '.' stands for any character)");
    }
    const EbnfPosition after_name = Position();
    SkipSpace();
    if (Peek() == ':' && !LookingAt("::=")) return LarkError(start, name + ":");
    if (!LookingAt("::=")) {
      return EbnfError(Peek() == kEnd ? after_name : Position(),
                       "expected '::=' after rule name '" + name + "', found " + DescribeHere());
    }
    if (!StartsLine(name_start)) {
      return EbnfError(start, "rule '" + name + "' must begin a new line (one rule per line)");
    }
    Advance(3);
    PAGODA_ASSIGN_OR_RETURN(ExprPtr body, ParseChoices());
    if (Peek() == ')') return EbnfError(Position(), "')' without a matching '('");
    syntax_.rules.push_back({std::move(name), start, std::move(body)});
    return Status::Ok();
  }

  Status LarkError(EbnfPosition at, const std::string& what) const {
    return EbnfError(at, "'" + what +
                             "' looks like Lark, which a GBNF grammar cannot mix in: write GBNF rules "
                             "'name ::= ...' starting from '" +
                             options_.root_rule + " ::= ...', or the whole grammar in Lark (without '::=')");
  }

  // ---- Expressions.

  // alternatives separated by '|'; stops before ')', a new rule or the end.
  StatusOr<ExprPtr> ParseChoices() {
    std::vector<ExprPtr> alternatives;
    for (;;) {
      PAGODA_ASSIGN_OR_RETURN(ExprPtr sequence, ParseSequence());
      alternatives.push_back(std::move(sequence));
      SkipSpace();
      if (Peek() != '|') break;
      Advance();
    }
    return alternatives.size() == 1 ? alternatives[0] : Choice(std::move(alternatives));
  }

  StatusOr<ExprPtr> ParseSequence() {
    std::vector<ExprPtr> elements;
    for (;;) {
      SkipSpace();
      const int c = Peek();
      if (c == kEnd || c == '|' || c == ')' || AtRuleStart()) break;
      PAGODA_ASSIGN_OR_RETURN(ExprPtr element, ParseQuantified());
      elements.push_back(std::move(element));
    }
    if (elements.empty()) {
      return EbnfError(Position(), "expected an element (a string, a class, a rule name or a group), found " +
                                       DescribeHere() + (Peek() == '|' ? " (write \"\" for the empty string)" : ""));
    }
    return elements.size() == 1 ? elements[0] : Sequence(std::move(elements));
  }

  StatusOr<ExprPtr> ParseQuantified() {
    PAGODA_ASSIGN_OR_RETURN(ExprPtr element, ParseElement());
    SkipSpace();
    const int c = Peek();
    if (c != '*' && c != '+' && c != '?' && c != '{') return element;
    if (c == '*') {
      Advance();
      element = Star(std::move(element));
    } else if (c == '+') {
      Advance();
      element = Plus(std::move(element));
    } else if (c == '?') {
      Advance();
      element = Optional(std::move(element));
    } else {
      PAGODA_ASSIGN_OR_RETURN(element, ParseBraces(std::move(element)));
    }
    SkipSpace();
    const int next = Peek();
    if (next == '*' || next == '+' || next == '?' || next == '{') {
      return EbnfError(Position(), "a second quantifier " + DescribeHere() +
                                       " on one element: put the quantified element in parentheses");
    }
    return element;
  }

  // {m}, {m,} or {m,n}
  StatusOr<ExprPtr> ParseBraces(ExprPtr element) {
    Advance();  // '{'
    SkipSpace();
    if (Peek() == ',') return EbnfError(Position(), "'{,n}' needs a lower bound: write {0,n}");
    PAGODA_ASSIGN_OR_RETURN(const int min, ParseCount());
    SkipSpace();
    int max = min;
    if (Peek() == ',') {
      Advance();
      SkipSpace();
      if (Peek() == '}') {
        max = Expr::kUnbounded;
      } else {
        const EbnfPosition at = Position();
        PAGODA_ASSIGN_OR_RETURN(max, ParseCount());
        if (max < min) {
          return EbnfError(at, "repeat range {" + std::to_string(min) + "," + std::to_string(max) +
                                   "} has its upper bound below its lower bound");
        }
        SkipSpace();
      }
    }
    if (Peek() != '}') return EbnfError(Position(), "expected ',' or '}' in a repeat range, found " + DescribeHere());
    Advance();
    return Repeat(std::move(element), min, max);
  }

  StatusOr<int> ParseCount() {
    const EbnfPosition at = Position();
    if (!IsDigit(Peek())) return EbnfError(at, "expected a repeat count, found " + DescribeHere());
    const size_t first = pos_;
    int64_t value = 0;
    bool over = false;
    while (IsDigit(Peek())) {
      if (!over) value = value * 10 + (Peek() - '0');
      over = over || value > options_.max_repeat;
      Advance();
    }
    if (over) {
      return EbnfError(at, "repeat count " + std::string(text_.substr(first, pos_ - first)) + " is over the limit of " +
                               std::to_string(options_.max_repeat));
    }
    return static_cast<int>(value);
  }

  StatusOr<ExprPtr> ParseElement() {
    const EbnfPosition start = Position();
    const int c = Peek();
    if (c == '"') return ParseString();
    if (c == '[') return ParseClass();
    if (c == '.') {
      Advance();
      return AnyCodePoint();
    }
    if (c == '(') {
      if (Peek(1) == '=') {
        return EbnfError(start, "lookahead assertions '(= ...)' (an xgrammar extension) are not supported");
      }
      if (++depth_ > options_.max_nesting) {
        return EbnfError(start, "parentheses nested over " + std::to_string(options_.max_nesting) + " deep");
      }
      Advance();
      SkipSpace();
      ExprPtr inner;
      if (Peek() == ')') {
        inner = Empty();
      } else {
        PAGODA_ASSIGN_OR_RETURN(inner, ParseChoices());
      }
      if (Peek() != ')') return EbnfError(start, "'(' is never closed");
      Advance();
      --depth_;
      return inner;
    }
    if (IsNameStart(c)) {
      const size_t end = NameEnd(pos_);
      std::string name(text_.substr(pos_, end - pos_));
      const size_t after = AfterSpace(end);
      if (after < text_.size() && text_[after] == '(') {
        for (std::string_view macro : kMacros) {
          if (name == macro) {
            return EbnfError(start, "xgrammar's " + name + "(...) macro is not supported");
          }
        }
      }
      const size_t after_blanks = AfterBlanks(end);
      if (after_blanks < text_.size() && text_[after_blanks] == ':') return LarkError(start, name + ":");
      Advance(end - pos_);
      syntax_.references.push_back({name, start});
      return RuleRef(std::move(name));
    }
    if (IsDigit(c)) {
      return EbnfError(start, "unexpected digit: rule names cannot start with one, and counts go in {m,n}");
    }
    if (c == ']') return EbnfError(start, "']' without a matching '['");
    if (c == '}') return EbnfError(start, "'}' without a matching '{'");
    if (c == '*' || c == '+' || c == '?') {
      return EbnfError(start, "quantifier " + DescribeHere() + " without an element before it");
    }
    if (c == '\'') return EbnfError(start, "string literals use double quotes (\"...\"), not single ones");
    if (c >= 0x80 && !DecodeUtf8()) return InvalidUtf8();
    return EbnfError(start, "unexpected " + DescribeHere());
  }

  // What the cursor is at, for messages.
  std::string DescribeHere() const {
    if (Peek() == kEnd) return "the end of the grammar";
    const auto decoded = DecodeUtf8();
    if (!decoded) return "invalid UTF-8 (byte 0x" + Hex(Peek(), 2) + ")";
    return Describe(decoded->first);
  }

  // "..." with escapes; one line.
  StatusOr<ExprPtr> ParseString() {
    const EbnfPosition start = Position();
    Advance();  // '"'
    std::string value;
    for (;;) {
      const int c = Peek();
      if (c == kEnd || c == '\n' || c == '\r') {
        return EbnfError(start, "string literal is not closed on its line (write \\n for a newline)");
      }
      if (c == '"') break;
      char32_t code_point;
      if (c == '\\') {
        PAGODA_ASSIGN_OR_RETURN(code_point, ParseEscape(/*in_class=*/false));
      } else {
        const auto decoded = DecodeUtf8();
        if (!decoded) return InvalidUtf8();
        code_point = decoded->first;
        Advance(decoded->second);
      }
      AppendUtf8(code_point, &value);
    }
    Advance();  // '"'
    return value.empty() ? Empty() : Literal(value);
  }

  // The escape at the cursor ('\\'), as one code point.
  StatusOr<char32_t> ParseEscape(bool in_class) {
    const EbnfPosition start = Position();
    const int c = Peek(1);
    if (c == 'x' || c == 'u' || c == 'U') return ParseHexEscape();
    if (const std::optional<char32_t> simple = SimpleEscape(c)) {
      Advance(2);
      return *simple;
    }
    if (in_class) {
      static constexpr std::string_view kClassEscapes = "^$.*+()[]{}|-";
      if (c != kEnd && kClassEscapes.find(static_cast<char>(c)) != std::string_view::npos) {
        Advance(2);
        return static_cast<char32_t>(c);
      }
      if (c == 'd' || c == 'D' || c == 's' || c == 'S' || c == 'w' || c == 'W') {
        return EbnfError(start, std::string("class shorthand '\\") + static_cast<char>(c) +
                                    "' is not supported: write the ranges, as in [0-9] or [a-zA-Z0-9_]");
      }
    }
    if (c == kEnd) return EbnfError(start, "'\\' at the end of the grammar");
    std::string shown = "\\";
    if (c >= 0x21 && c < 0x7F) {
      shown += static_cast<char>(c);
    } else {
      shown = "'\\' followed by byte 0x" + Hex(c, 2);
      return EbnfError(start, "invalid escape: " + shown);
    }
    return EbnfError(start, "invalid escape '" + shown + "'" +
                                (in_class ? ""
                                          : " (in a string, only \\n \\t \\r \\\\ \\\" \\' \\? \\/ \\a \\b \\f \\v "
                                            "\\0 \\e \\x \\u \\U)"));
  }

  // \x followed by one or more hex digits (as many as follow, as xgrammar
  // reads it), \uHHHH or \UHHHHHHHH.
  StatusOr<char32_t> ParseHexEscape() {
    const EbnfPosition start = Position();
    const int kind = Peek(1);
    Advance(2);
    uint64_t value = 0;
    int digits = 0;
    const int exact = kind == 'u' ? 4 : kind == 'U' ? 8 : 0;
    while (HexValue(Peek()) >= 0 && (exact == 0 || digits < exact)) {
      value = value * 16 + HexValue(Peek());
      ++digits;
      Advance();
      if (value > kMaxCodePoint) {
        while (HexValue(Peek()) >= 0 && (exact == 0 || digits < exact)) ++digits, Advance();
        return EbnfError(start, "escape is past U+10FFFF, the last code point");
      }
    }
    if (digits == 0 || (exact != 0 && digits != exact)) {
      const std::string need = exact == 0 ? "at least one hex digit" : std::to_string(exact) + " hex digits";
      return EbnfError(start, std::string("invalid escape: '\\") + static_cast<char>(kind) + "' needs " + need);
    }
    const auto c = static_cast<char32_t>(value);
    if (IsSurrogate(c)) {
      return EbnfError(start, "escape U+" + Hex(c, 4) + " is a surrogate, not a character");
    }
    return c;
  }

  // One member of a class: a character, an escape or a dash.
  StatusOr<char32_t> ParseClassChar(EbnfPosition open) {
    const int c = Peek();
    if (c == kEnd) return EbnfError(open, "'[' is never closed");
    if (c == '\n' || c == '\r') {
      return EbnfError(open, "character class is not closed on its line (write [\\n] for a newline)");
    }
    if (c == '\\') return ParseEscape(/*in_class=*/true);
    const auto decoded = DecodeUtf8();
    if (!decoded) return InvalidUtf8();
    Advance(decoded->second);
    return decoded->first;
  }

  // [...] or [^...]: one code point of (or not of) the listed ones and ranges.
  StatusOr<ExprPtr> ParseClass() {
    const EbnfPosition open = Position();
    Advance();  // '['
    bool negated = false;
    if (Peek() == '^') {
      negated = true;
      Advance();
    }
    CodePointRanges ranges;
    while (Peek() != ']') {
      const EbnfPosition first_at = Position();
      PAGODA_ASSIGN_OR_RETURN(const char32_t first, ParseClassChar(open));
      char32_t last = first;
      if (Peek() == '-' && Peek(1) != ']' && Peek(1) != kEnd && Peek(1) != '\n' && Peek(1) != '\r') {
        Advance();  // '-'
        PAGODA_ASSIGN_OR_RETURN(last, ParseClassChar(open));
        if (last < first) {
          return EbnfError(first_at, "character range " + Describe(first) + "-" + Describe(last) +
                                         " is reversed (its first is after its last)");
        }
      }
      ranges.emplace_back(first, last);
    }
    Advance();  // ']'
    if (!negated && ranges.empty()) {
      return EbnfError(open, "empty character class '[]' matches nothing (write [^] for any character)");
    }
    if (negated) {
      if (Complement(ranges).empty()) return EbnfError(open, "character class excludes every character");
      return CodePointsExcept(ranges);
    }
    return CodePoints(ranges);
  }

  std::string_view text_;
  const EbnfOptions& options_;
  size_t pos_ = 0;
  int line_ = 1;
  int column_ = 1;
  int depth_ = 0;
  EbnfSyntax syntax_;
};

}  // namespace

Status EbnfError(EbnfPosition position, const std::string& what) {
  return InvalidArgumentError("ebnf: line " + std::to_string(position.line) + ", column " +
                              std::to_string(position.column) + ": " + what);
}

StatusOr<EbnfSyntax> ParseEbnf(std::string_view text, const EbnfOptions& options) {
  return Parser(text, options).Run();
}

}  // namespace pagoda::structured
