#include "pagoda/chat_template/lexer.h"

#include <cstdlib>

#include "pagoda/chat_template/error.h"
#include "pagoda/chat_template/unicode.h"

namespace pagoda::chat_template {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsNameStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool IsNameChar(char c) { return IsNameStart(c) || IsDigit(c); }
int HexValue(char c) {
  if (IsDigit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Operators, longest first so that "**" wins over "*".
constexpr std::string_view kOperators[] = {"//", "**", "==", "!=", ">=", "<=", "+", "-", "/", "*", "%", "~", "[",
                                           "]",  "(",  ")",  "{",  "}",  "=",  ".", ":", "|", ",", ";", ">", "<"};

class Lexer {
 public:
  explicit Lexer(std::string_view source) : src_(source) {}

  std::vector<Token> Run() {
    while (pos_ < src_.size()) LexRoot();
    tokens_.push_back({TokenKind::kEof, static_cast<uint32_t>(src_.size()), {}});
    return std::move(tokens_);
  }

 private:
  enum class Tag { kVariable, kBlock };

  // Python's `\s*` from `pos`: the end of the whitespace run.
  size_t SkipSpace(size_t pos) const {
    while (pos < src_.size()) {
      size_t next = pos;
      if (!IsPythonSpace(DecodeUtf8(src_, &next))) break;
      pos = next;
    }
    return pos;
  }
  bool At(size_t pos, std::string_view text) const { return src_.substr(pos, text.size()) == text; }

  void Emit(TokenKind kind, size_t offset, std::string text = {}) {
    tokens_.push_back({kind, static_cast<uint32_t>(offset), std::move(text)});
  }

  // Data before a tag that opens at `tag_pos` with whitespace-control sign
  // `sign` ('-', '+' or 0), trimmed as jinja2's OptionalLStrip rule does.
  void EmitData(size_t start, size_t tag_pos, char sign, bool lstrip) {
    std::string_view text = src_.substr(start, tag_pos - start);
    if (sign == '-') {
      size_t end = text.size();
      // rstrip(): step back over whole code points of whitespace.
      while (end > 0) {
        size_t begin = end - 1;
        while (begin > 0 && (static_cast<unsigned char>(text[begin]) & 0xC0) == 0x80) --begin;
        size_t p = begin;
        if (!IsPythonSpace(DecodeUtf8(text, &p))) break;
        end = begin;
      }
      text = text.substr(0, end);
    } else if (sign != '+' && lstrip) {
      const size_t line_start = text.rfind('\n') + 1;  // npos + 1 == 0
      if (line_start > 0 || line_starting_) {
        std::string_view tail = text.substr(line_start);
        if (!tail.empty() && SkipSpace(start + line_start) == tag_pos) text = text.substr(0, line_start);
      }
    }
    if (!text.empty()) Emit(TokenKind::kData, start, std::string(text));
  }

  void LexRoot() {
    const size_t start = pos_;
    size_t i = start;
    for (;; ++i) {
      i = src_.find('{', i);
      if (i == std::string_view::npos || i + 1 >= src_.size()) {
        Emit(TokenKind::kData, start, std::string(src_.substr(start)));
        pos_ = src_.size();
        return;
      }
      const char c = src_[i + 1];
      if (c == '{' || c == '%' || c == '#') break;
    }
    const char opener = src_[i + 1];
    const char sign = i + 2 < src_.size() && (src_[i + 2] == '-' || src_[i + 2] == '+') ? src_[i + 2] : 0;
    const size_t after = i + 2 + (sign != 0);
    if (opener == '%' && LexRaw(start, i, sign, after)) return;
    EmitData(start, i, sign, /*lstrip=*/opener != '{');
    line_starting_ = false;
    pos_ = after;
    if (opener == '#') {
      LexComment(i);
    } else {
      LexTag(opener == '{' ? Tag::kVariable : Tag::kBlock, i);
    }
  }

  // `{% raw %}...{% endraw %}`: the text between is data, verbatim.
  bool LexRaw(size_t data_start, size_t tag_pos, char sign, size_t after) {
    size_t p = SkipSpace(after);
    if (!At(p, "raw")) return false;
    p = SkipSpace(p + 3);
    if (At(p, "-%}")) {
      p = SkipSpace(p + 3);
    } else if (At(p, "%}")) {
      p += 2;
    } else {
      return false;
    }
    EmitData(data_start, tag_pos, sign, /*lstrip=*/true);
    line_starting_ = src_[p - 1] == '\n';
    // Find `{%[-+]? endraw [+-]?%}`.
    for (size_t q = src_.find("{%", p); q != std::string_view::npos; q = src_.find("{%", q + 1)) {
      const char end_sign = q + 2 < src_.size() && (src_[q + 2] == '-' || src_[q + 2] == '+') ? src_[q + 2] : 0;
      size_t r = SkipSpace(q + 2 + (end_sign != 0));
      if (!At(r, "endraw")) continue;
      r = SkipSpace(r + 6);
      size_t end;
      if (At(r, "+%}")) {
        end = r + 3;
      } else if (At(r, "-%}")) {
        end = SkipSpace(r + 3);
      } else if (At(r, "%}")) {
        end = r + 2 + (At(r + 2, "\n") ? 1 : 0);
      } else {
        continue;
      }
      EmitData(p, q, end_sign, /*lstrip=*/true);
      line_starting_ = src_[end - 1] == '\n';
      pos_ = end;
      return true;
    }
    ThrowSyntax(tag_pos, "missing end of raw directive");
  }

  void LexComment(size_t tag_pos) {
    for (size_t p = pos_; p + 1 < src_.size(); ++p) {
      size_t end = 0;
      if (At(p, "+#}")) {
        end = p + 3;
      } else if (At(p, "-#}")) {
        end = SkipSpace(p + 3);
      } else if (At(p, "#}")) {
        end = p + 2 + (At(p + 2, "\n") ? 1 : 0);  // trim_blocks
      } else {
        continue;
      }
      line_starting_ = src_[end - 1] == '\n';
      pos_ = end;
      return;
    }
    ThrowSyntax(tag_pos, "missing end of comment tag");
  }

  // Tokens of a `{{ }}` or `{% %}` tag, up to and including its end.
  void LexTag(Tag tag, size_t tag_pos) {
    Emit(tag == Tag::kVariable ? TokenKind::kVariableBegin : TokenKind::kBlockBegin, tag_pos);
    std::string brackets;  // closers expected, innermost last
    while (pos_ < src_.size()) {
      // A closing delimiter counts only outside brackets: `{{ {'a': {}} }}`.
      if (brackets.empty() && LexTagEnd(tag)) return;
      const size_t p = pos_;
      const char c = src_[p];
      if (static_cast<unsigned char>(c) >= 0x80 || IsPythonSpace(static_cast<unsigned char>(c))) {
        const size_t end = SkipSpace(p);
        if (end == p) ThrowSyntax(p, "unexpected character in tag");
        pos_ = end;
      } else if (IsDigit(c)) {
        LexNumber();
      } else if (IsNameStart(c)) {
        size_t end = p;
        while (end < src_.size() && IsNameChar(src_[end])) ++end;
        Emit(TokenKind::kName, p, std::string(src_.substr(p, end - p)));
        pos_ = end;
      } else if (c == '\'' || c == '"') {
        LexString();
      } else {
        LexOperator(&brackets);
      }
    }
    // Unterminated tag: the parser reports the missing end.
  }

  bool LexTagEnd(Tag tag) {
    const size_t p = pos_;
    size_t end;
    if (tag == Tag::kBlock) {
      if (At(p, "+%}")) {
        end = p + 3;
      } else if (At(p, "-%}")) {
        end = SkipSpace(p + 3);
      } else if (At(p, "%}")) {
        end = p + 2 + (At(p + 2, "\n") ? 1 : 0);  // trim_blocks
      } else {
        return false;
      }
    } else {
      if (At(p, "-}}")) {
        end = SkipSpace(p + 3);
      } else if (At(p, "}}")) {
        end = p + 2;
      } else {
        return false;
      }
    }
    Emit(tag == Tag::kBlock ? TokenKind::kBlockEnd : TokenKind::kVariableEnd, p);
    line_starting_ = src_[end - 1] == '\n';
    pos_ = end;
    return true;
  }

  // Digits with single underscores between them, as Python literals allow.
  size_t ScanDigits(size_t p, int base) const {
    size_t end = p;
    while (end < src_.size()) {
      const char c = src_[end];
      const size_t next = c == '_' ? end + 1 : end;
      if (next >= src_.size()) break;
      const int d = HexValue(src_[next]);
      if (d < 0 || d >= base) break;
      end = next + 1;
    }
    return end;
  }

  void LexNumber() {
    const size_t p = pos_;
    // A float needs a fraction or an exponent; jinja2 lexes `x.0` after a
    // dot as an integer (item access), hence the look-behind.
    const bool after_dot = p > 0 && src_[p - 1] == '.';
    size_t end = ScanDigits(p, 10);
    bool is_float = false;
    if (!after_dot) {
      size_t q = end;
      if (q + 1 < src_.size() && src_[q] == '.' && IsDigit(src_[q + 1])) {
        q = ScanDigits(q + 1, 10);
        is_float = true;
      }
      if (q < src_.size() && (src_[q] == 'e' || src_[q] == 'E')) {
        size_t r = q + 1;
        if (r < src_.size() && (src_[r] == '+' || src_[r] == '-')) ++r;
        if (r < src_.size() && IsDigit(src_[r])) {
          q = ScanDigits(r, 10);
          is_float = true;
        }
      }
      if (is_float) end = q;
    }
    std::string digits;
    if (is_float) {
      for (size_t k = p; k < end; ++k) {
        if (src_[k] != '_') digits.push_back(src_[k]);
      }
      Token token{TokenKind::kFloat, static_cast<uint32_t>(p), {}};
      token.float_value = std::strtod(digits.c_str(), nullptr);
      tokens_.push_back(std::move(token));
      pos_ = end;
      return;
    }
    int base = 10;
    size_t digits_start = p;
    if (src_[p] == '0' && p + 1 < src_.size()) {
      const char prefix = src_[p + 1] | 0x20;
      base = prefix == 'x' ? 16 : prefix == 'o' ? 8 : prefix == 'b' ? 2 : 10;
      if (base != 10) {
        digits_start = p + 2;
        end = ScanDigits(digits_start, base);
        if (end == digits_start) ThrowSyntax(p, "invalid integer literal");
      } else {
        end = p + 1;  // a decimal literal starting with 0 is 0 (or 0_0...)
        while (end + 1 < src_.size() && (src_[end] == '0' || (src_[end] == '_' && src_[end + 1] == '0'))) ++end;
      }
    }
    uint64_t value = 0;
    for (size_t k = digits_start; k < end; ++k) {
      if (src_[k] == '_') continue;
      const uint64_t next = value * base + HexValue(src_[k]);
      if (next > static_cast<uint64_t>(INT64_MAX) || next / base < value) ThrowSyntax(p, "integer literal too large");
      value = next;
    }
    Token token{TokenKind::kInteger, static_cast<uint32_t>(p), {}};
    token.int_value = static_cast<int64_t>(value);
    tokens_.push_back(std::move(token));
    pos_ = end;
  }

  // A quoted string with Python's escapes (jinja2 decodes literals with
  // "unicode-escape").
  void LexString() {
    const size_t p = pos_;
    const char quote = src_[p];
    std::string value;
    size_t i = p + 1;
    for (;;) {
      if (i >= src_.size()) ThrowSyntax(p, "unterminated string literal");
      const char c = src_[i];
      if (c == quote) break;
      if (c != '\\') {
        value.push_back(c);
        ++i;
        continue;
      }
      if (i + 1 >= src_.size()) ThrowSyntax(p, "unterminated string literal");
      const char e = src_[i + 1];
      i += 2;
      switch (e) {
        case '\n': break;  // line continuation
        case '\\': value.push_back('\\'); break;
        case '\'': value.push_back('\''); break;
        case '"': value.push_back('"'); break;
        case 'a': value.push_back('\a'); break;
        case 'b': value.push_back('\b'); break;
        case 'f': value.push_back('\f'); break;
        case 'n': value.push_back('\n'); break;
        case 'r': value.push_back('\r'); break;
        case 't': value.push_back('\t'); break;
        case 'v': value.push_back('\v'); break;
        case 'x': AppendEscape(&i, 2, p, &value); break;
        case 'u': AppendEscape(&i, 4, p, &value); break;
        case 'U': AppendEscape(&i, 8, p, &value); break;
        default:
          if (e >= '0' && e <= '7') {
            char32_t code = e - '0';
            // Up to three octal digits in all.
            for (int k = 0; k < 2 && i < src_.size() && src_[i] >= '0' && src_[i] <= '7'; ++k) {
              code = code * 8 + (src_[i++] - '0');
            }
            AppendUtf8(code, &value);
          } else {  // unknown escapes stay as written
            value.push_back('\\');
            --i;
          }
      }
    }
    Emit(TokenKind::kString, p, std::move(value));
    pos_ = i + 1;
  }

  void AppendEscape(size_t* i, int digits, size_t literal_pos, std::string* out) {
    char32_t code = 0;
    for (int k = 0; k < digits; ++k) {
      const int d = *i < src_.size() ? HexValue(src_[*i]) : -1;
      if (d < 0) ThrowSyntax(literal_pos, "truncated \\{} escape in string literal", digits == 2 ? 'x' : 'u');
      code = code * 16 + d;
      ++*i;
    }
    if (code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) {
      ThrowSyntax(literal_pos, "invalid code point in string literal escape");
    }
    AppendUtf8(code, out);
  }

  void LexOperator(std::string* brackets) {
    const size_t p = pos_;
    for (std::string_view op : kOperators) {
      if (!At(p, op)) continue;
      const char c = op[0];
      if (op.size() == 1 && (c == '(' || c == '[' || c == '{')) {
        brackets->push_back(c == '(' ? ')' : c == '[' ? ']' : '}');
      } else if (op.size() == 1 && (c == ')' || c == ']' || c == '}')) {
        if (brackets->empty()) ThrowSyntax(p, "unexpected '{}'", c);
        if (brackets->back() != c) ThrowSyntax(p, "unexpected '{}', expected '{}'", c, brackets->back());
        brackets->pop_back();
      }
      Emit(TokenKind::kOperator, p, std::string(op));
      pos_ = p + op.size();
      return;
    }
    ThrowSyntax(p, "unexpected character '{}'", src_[p]);
  }

  std::string_view src_;
  size_t pos_ = 0;
  // Whether the last match ended a line; lstrip_blocks also strips
  // indentation at the very start of the template.
  bool line_starting_ = true;
  std::vector<Token> tokens_;
};

}  // namespace

std::string NormalizeSource(std::string_view source) {
  std::string out;
  out.reserve(source.size());
  for (size_t i = 0; i < source.size(); ++i) {
    if (source[i] == '\r') {
      out.push_back('\n');
      if (i + 1 < source.size() && source[i + 1] == '\n') ++i;
    } else {
      out.push_back(source[i]);
    }
  }
  if (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

std::vector<Token> Tokenize(std::string_view source) { return Lexer(source).Run(); }

}  // namespace pagoda::chat_template
