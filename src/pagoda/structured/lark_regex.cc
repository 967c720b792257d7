#include "pagoda/structured/lark_regex.h"

#include <string>

#include "pagoda/structured/lark_literal.h"

namespace pagoda::structured {
namespace {

// A counted repeat {m}, {m,}, {,n} or {m,n} begins at `open` ('{').
// Returns the index of its '}', or 0 if the brace is a literal one.
size_t CountedRepeatEnd(std::u32string_view p, size_t open) {
  size_t i = open + 1;
  bool digits = false;
  while (i < p.size() && p[i] >= '0' && p[i] <= '9') ++i, digits = true;
  if (i < p.size() && p[i] == ',') {
    ++i;
    while (i < p.size() && p[i] >= '0' && p[i] <= '9') ++i, digits = true;
  }
  return digits && i < p.size() && p[i] == '}' ? i : 0;
}

// The pattern with `.` widened under `dotall`, after refusing anchors and
// lazy quantifiers outside classes.
StatusOr<std::u32string> Prepare(std::u32string_view p, bool dotall) {
  std::u32string out;
  bool in_class = false;
  size_t class_first = 0;         // a ']' here is a member, not the end
  bool after_quantifier = false;  // the last thing read was a quantifier
  bool after_open = false;        // the last thing read was an unescaped '('
  for (size_t i = 0; i < p.size(); ++i) {
    const char32_t c = p[i];
    const bool opened = after_open;
    after_open = false;
    if (c == '\\') {
      if (!in_class && i + 1 < p.size() && (p[i + 1] == 'A' || p[i + 1] == 'Z')) {
        return InvalidArgumentError(std::string("anchor '\\") + static_cast<char>(p[i + 1]) +
                                    "' is not supported in a Lark terminal (it would depend on where the terminal "
                                    "stands in the text)");
      }
      out.push_back(c);
      if (i + 1 < p.size()) out.push_back(p[++i]);
      after_quantifier = false;
      continue;
    }
    if (in_class) {
      out.push_back(c);
      if (c == ']' && i > class_first) in_class = false;
      continue;
    }
    switch (c) {
      case '[':
        in_class = true;
        class_first = i + 1;
        if (class_first < p.size() && p[class_first] == '^') ++class_first;
        out.push_back(c);
        after_quantifier = false;
        break;
      case '.':
        if (dotall) {
          out += U"(?:.|\n)";
        } else {
          out.push_back(c);
        }
        after_quantifier = false;
        break;
      case '^':
      case '$':
        return InvalidArgumentError(std::string("anchor '") + static_cast<char>(c) +
                                    "' is not supported in a Lark terminal (it would depend on where the terminal "
                                    "stands in the text)");
      case '?':
        if (opened) {  // "(?": a group extension
          out.push_back(c);
          break;
        }
        if (after_quantifier) {
          return InvalidArgumentError(
              "lazy quantifier '" + EncodeUtf8(std::u32string(1, p[i - 1])) +
              "?' is not supported in a Lark terminal (Lark's lexer would stop at its shortest match)");
        }
        out.push_back(c);
        after_quantifier = true;
        break;
      case '*':
      case '+':
        out.push_back(c);
        after_quantifier = true;
        break;
      case '{':
        if (const size_t close = CountedRepeatEnd(p, i); close != 0) {
          out.append(p.substr(i, close - i + 1));
          i = close;
          after_quantifier = true;
        } else {
          out.push_back(c);
          after_quantifier = false;
        }
        break;
      case '(':
        out.push_back(c);
        after_open = true;
        after_quantifier = false;
        break;
      default:
        out.push_back(c);
        after_quantifier = false;
        break;
    }
  }
  return out;
}

}  // namespace

StatusOr<ExprPtr> LarkRegexExpr(std::string_view token, const RegexLimits& limits) {
  const size_t close = token.rfind('/');
  const std::string_view flags = token.substr(close + 1);
  bool dotall = false;
  for (const char flag : flags) {
    switch (flag) {
      case 's': dotall = true; break;
      case 'm':
      case 'u': break;
      case 'i':
        return InvalidArgumentError(
            "flag 'i' on a regular expression is not supported: write both cases in the pattern ([aA]), or use a "
            "case-insensitive string \"...\"i");
      case 'x': return InvalidArgumentError("flag 'x' (verbose) on a regular expression is not supported");
      default: return InvalidArgumentError(std::string("flag '") + flag + "' on a regular expression is not supported");
    }
  }
  PAGODA_ASSIGN_OR_RETURN(const std::u32string pattern, EvalLarkEscapes(DecodeLarkText(token.substr(1, close - 1))));
  PAGODA_ASSIGN_OR_RETURN(const std::u32string prepared, Prepare(pattern, dotall));
  auto expr = RegexToExpr(EncodeUtf8(prepared), limits);
  if (!expr.ok()) {
    std::string what = expr.status().message();
    if (what.starts_with("regex: ")) what.erase(0, 7);
    return InvalidArgumentError(what);
  }
  return expr;
}

}  // namespace pagoda::structured
