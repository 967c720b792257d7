#include "pagoda/structured/regex_class.h"

#include "pagoda/structured/regex_escape.h"

namespace pagoda::structured {
namespace {

// One member of a class: a code point, or the class of an escape like \d.
StatusOr<RegexEscape> ParseMember(RegexScanner& scanner, size_t open) {
  const char32_t c = scanner.Peek();
  if (c == RegexScanner::kEnd) return RegexScanner::Malformed(open, "unterminated character class (missing ']')");
  if (c == '\\') return ParseEscape(scanner, /*in_class=*/true);
  if (c == '[') return RegexScanner::Unsupported(scanner.offset(), "'[' inside a character class (escape it as '\\[')");
  scanner.Next();
  return RegexEscape{false, c, {}};
}

void Add(const RegexEscape& member, CodePointRanges* ranges) {
  if (member.is_class) {
    ranges->insert(ranges->end(), member.ranges.begin(), member.ranges.end());
  } else {
    ranges->push_back({member.code_point, member.code_point});
  }
}

}  // namespace

StatusOr<CodePointRanges> ParseClass(RegexScanner& scanner) {
  const size_t open = scanner.offset();
  scanner.Next();  // '['
  const bool negated = scanner.Consume('^');
  if (scanner.Peek() == ']') {
    return RegexScanner::Unsupported(open, "']' first in a character class (escape it as '\\]')");
  }
  CodePointRanges ranges;
  while (!scanner.Consume(']')) {
    const size_t begin = scanner.offset();
    PAGODA_ASSIGN_OR_RETURN(const RegexEscape first, ParseMember(scanner, open));
    // A '-' first, last or right after a range is a literal, as in Python.
    if (scanner.Peek() != '-' || scanner.Peek(1) == ']' || scanner.Peek(1) == RegexScanner::kEnd) {
      Add(first, &ranges);
      continue;
    }
    scanner.Next();  // '-'
    PAGODA_ASSIGN_OR_RETURN(const RegexEscape last, ParseMember(scanner, open));
    if (first.is_class || last.is_class || first.code_point > last.code_point) {
      const std::string spelling = scanner.Spelling(begin);
      return RegexScanner::Malformed(begin, "bad character range '" + spelling + "'");
    }
    ranges.push_back({first.code_point, last.code_point});
  }
  return negated ? Complement(ranges) : Normalize(std::move(ranges));
}

}  // namespace pagoda::structured
