#include "pagoda/structured/lark_literal.h"

#include <cstdio>
#include <utility>
#include <vector>

namespace pagoda::structured {
namespace {

int HexValue(char32_t c) {
  if (c >= '0' && c <= '9') return static_cast<int>(c - '0');
  if (c >= 'a' && c <= 'f') return static_cast<int>(c - 'a' + 10);
  if (c >= 'A' && c <= 'F') return static_cast<int>(c - 'A' + 10);
  return -1;
}

std::string CodePointName(char32_t c) {
  char buffer[16];
  std::snprintf(buffer, sizeof(buffer), "U+%04X", static_cast<unsigned>(c));
  if (c >= 0x21 && c < 0x7F) return std::string("'") + static_cast<char>(c) + "' (" + buffer + ")";
  return buffer;
}

// Python's reading of the escapes that Lark's rewriting leaves: \\ \' \"
// \n \t \r \f \x \u \U.
StatusOr<std::u32string> PythonEscapes(std::u32string_view w) {
  std::u32string out;
  for (size_t i = 0; i < w.size(); ++i) {
    if (w[i] != '\\' || i + 1 == w.size()) {
      out.push_back(w[i]);
      continue;
    }
    const char32_t kind = w[++i];
    switch (kind) {
      case '\\':
      case '\'':
      case '"': out.push_back(kind); continue;
      case 'n': out.push_back('\n'); continue;
      case 't': out.push_back('\t'); continue;
      case 'r': out.push_back('\r'); continue;
      case 'f': out.push_back('\f'); continue;
      case 'x':
      case 'u':
      case 'U': break;
      default:
        out.push_back('\\');
        out.push_back(kind);
        continue;
    }
    const size_t digits = kind == 'x' ? 2 : kind == 'u' ? 4 : 8;
    uint32_t value = 0;
    for (size_t d = 0; d < digits; ++d) {
      const int hex = i + 1 + d < w.size() ? HexValue(w[i + 1 + d]) : -1;
      if (hex < 0) {
        return InvalidArgumentError(std::string("invalid escape: '\\") + static_cast<char>(kind) + "' needs " +
                                    std::to_string(digits) + " hex digits");
      }
      value = value * 16 + static_cast<uint32_t>(hex);
    }
    i += digits;
    if (value > kMaxCodePoint) return InvalidArgumentError("escape is past U+10FFFF, the last code point");
    if (value >= 0xD800 && value <= 0xDFFF) {
      return InvalidArgumentError("escape " + CodePointName(value) + " is a surrogate, not a character");
    }
    out.push_back(value);
  }
  return out;
}

// The body of a string token, its escapes evaluated as Lark's strings are
// (a doubled backslash after evaluation is one backslash); `flags` gets
// what follows the closing quote.
StatusOr<std::u32string> StringValue(std::string_view token, std::string_view* flags) {
  const size_t close = token.rfind('"');
  *flags = token.substr(close + 1);
  PAGODA_ASSIGN_OR_RETURN(const std::u32string value, EvalLarkEscapes(DecodeLarkText(token.substr(1, close - 1))));
  std::u32string out;
  for (size_t i = 0; i < value.size(); ++i) {
    out.push_back(value[i]);
    if (value[i] == '\\' && i + 1 < value.size() && value[i + 1] == '\\') ++i;
  }
  return out;
}

// The code points that match `c` under Python's re.IGNORECASE, `c` ASCII.
std::vector<char32_t> CaseVariants(char32_t c) {
  std::vector<char32_t> variants = {c};
  const bool lower = c >= 'a' && c <= 'z';
  const bool upper = c >= 'A' && c <= 'Z';
  if (!lower && !upper) return variants;
  const char32_t l = lower ? c : c - 'A' + 'a';
  variants = {l, l - 'a' + 'A'};
  if (l == 'i') variants.insert(variants.end(), {0x130, 0x131});
  if (l == 'k') variants.push_back(0x212A);
  if (l == 's') variants.push_back(0x17F);
  return variants;
}

StatusOr<ExprPtr> CaseInsensitive(const std::u32string& value) {
  std::vector<ExprPtr> items;
  std::string exact;  // a run of characters without case, as one literal
  for (const char32_t c : value) {
    if (c >= 0x80) {
      return InvalidArgumentError("a case-insensitive string (\"...\"i) with the non-ASCII character " +
                                  CodePointName(c) + " is not supported: write its cases out, as in (\"a\" | \"A\")");
    }
    const std::vector<char32_t> variants = CaseVariants(c);
    if (variants.size() == 1) {
      exact.push_back(static_cast<char>(c));
      continue;
    }
    if (!exact.empty()) items.push_back(Literal(exact)), exact.clear();
    ByteSet ascii;
    std::vector<ExprPtr> choices;
    for (const char32_t v : variants) {
      if (v < 0x80) {
        ascii.Add(static_cast<uint8_t>(v));
      } else {
        choices.push_back(Literal(EncodeUtf8(std::u32string(1, v))));
      }
    }
    choices.insert(choices.begin(), Bytes(ascii));
    items.push_back(Choice(std::move(choices)));
  }
  if (!exact.empty()) items.push_back(Literal(exact));
  return items.size() == 1 ? items[0] : Sequence(std::move(items));
}

}  // namespace

std::u32string DecodeLarkText(std::string_view text) {
  std::u32string out;
  for (size_t i = 0; i < text.size();) {
    const auto lead = static_cast<uint8_t>(text[i]);
    const size_t length = lead < 0x80 ? 1 : (lead & 0xE0) == 0xC0 ? 2 : (lead & 0xF0) == 0xE0 ? 3 : 4;
    char32_t c = length == 1 ? lead : lead & (0xFF >> (length + 1));
    for (size_t k = 1; k < length && i + k < text.size(); ++k)
      c = (c << 6) | (static_cast<uint8_t>(text[i + k]) & 0x3F);
    out.push_back(c);
    i += length;
  }
  return out;
}

std::string EncodeUtf8(std::u32string_view text) {
  std::string out;
  for (const char32_t c : text) {
    if (c < 0x80) {
      out.push_back(static_cast<char>(c));
    } else if (c < 0x800) {
      out.push_back(static_cast<char>(0xC0 | (c >> 6)));
      out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    } else if (c < 0x10000) {
      out.push_back(static_cast<char>(0xE0 | (c >> 12)));
      out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    } else {
      out.push_back(static_cast<char>(0xF0 | (c >> 18)));
      out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    }
  }
  return out;
}

// Lark rewrites the body for Python's literal_eval: after a backslash, a
// backslash becomes three more, and a character other than U u x n f t r
// gets one more (so that Python keeps it); then \" becomes " and every '
// becomes \'. Python then reads the escapes.
StatusOr<std::u32string> EvalLarkEscapes(std::u32string_view body) {
  std::u32string w;
  for (size_t i = 0; i < body.size(); ++i) {
    w.push_back(body[i]);
    if (body[i] != '\\') continue;
    if (i + 1 == body.size()) return InvalidArgumentError("the literal ends with a lone backslash");
    const char32_t next = body[++i];
    if (next == '\\') {
      w += U"\\\\";
    } else if (std::u32string_view(U"Uuxnftr").find(next) == std::u32string_view::npos) {
      w.push_back('\\');
    }
    w.push_back(next);
  }
  std::u32string unquoted;
  for (size_t i = 0; i < w.size(); ++i) {
    if (w[i] == '\\' && i + 1 < w.size() && w[i + 1] == '"') continue;  // \" -> "
    unquoted.push_back(w[i]);
  }
  std::u32string quoted;
  for (const char32_t c : unquoted) {
    if (c == '\'') quoted.push_back('\\');
    quoted.push_back(c);
  }
  return PythonEscapes(quoted);
}

StatusOr<ExprPtr> LarkStringExpr(std::string_view token) {
  std::string_view flags;
  PAGODA_ASSIGN_OR_RETURN(const std::u32string value, StringValue(token, &flags));
  if (value.empty()) return InvalidArgumentError("empty string literals are not allowed (Lark has no empty terminals)");
  if (flags == "i") return CaseInsensitive(value);
  return Literal(EncodeUtf8(value));
}

StatusOr<ExprPtr> LarkRangeExpr(std::string_view first_token, std::string_view last_token) {
  std::string_view first_flags;
  std::string_view last_flags;
  PAGODA_ASSIGN_OR_RETURN(const std::u32string first, StringValue(first_token, &first_flags));
  PAGODA_ASSIGN_OR_RETURN(const std::u32string last, StringValue(last_token, &last_flags));
  if (!first_flags.empty() || !last_flags.empty()) {
    return InvalidArgumentError("a range's ends cannot have the 'i' flag");
  }
  if (first.size() != 1 || last.size() != 1) {
    return InvalidArgumentError("a range's ends must be single characters, as in \"a\"..\"z\"");
  }
  if (last[0] < first[0]) {
    return InvalidArgumentError("range " + CodePointName(first[0]) + ".." + CodePointName(last[0]) +
                                " is reversed (its first is after its last)");
  }
  return CodePoints({{first[0], last[0]}});
}

}  // namespace pagoda::structured
