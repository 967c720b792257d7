#include "pagoda/structured/regex_quantifier.h"

#include <algorithm>
#include <string>

#include "pagoda/structured/expr.h"

namespace pagoda::structured {
namespace {

// Past this a count only needs to be known to be too large.
constexpr long kCountCeiling = 1'000'000'000;

// A count's digits as a number (at most kCountCeiling), or -1 if none.
long ReadCount(RegexScanner& scanner) {
  long value = -1;
  while (scanner.Peek() >= '0' && scanner.Peek() <= '9') {
    value = std::min(kCountCeiling, std::max(value, 0L) * 10 + static_cast<long>(scanner.Next() - '0'));
  }
  return value;
}

struct Braces {
  long min;  // -1: not written
  long max;  // -1: not written
  bool comma;
};

// "{n}", "{n,}", "{n,m}", "{,m}" or "{,}" with the cursor moved past it,
// or nullopt with the cursor where it was.
std::optional<Braces> ReadBraces(RegexScanner& scanner) {
  const size_t start = scanner.position();
  if (scanner.Consume('{')) {
    Braces braces{ReadCount(scanner), -1, scanner.Consume(',')};
    if (braces.comma) braces.max = ReadCount(scanner);
    if (scanner.Consume('}') && (braces.min >= 0 || braces.comma)) return braces;
  }
  scanner.Rewind(start);
  return std::nullopt;
}

// The counts of `braces` that began at byte `begin`, checked.
StatusOr<RegexQuantifier> CheckCounts(const RegexScanner& scanner, const Braces& braces, size_t begin,
                                      int max_repeat) {
  std::string spelling = "'";
  spelling += scanner.Spelling(begin);
  spelling += "'";
  if (braces.min < 0) return RegexScanner::Unsupported(begin, "repeat without a minimum " + spelling);
  for (const long count : {braces.min, braces.max}) {
    if (count > max_repeat) {
      const std::string limit = std::to_string(max_repeat);
      return RegexScanner::Unsupported(begin, "repeat count " + spelling + " over the limit of " + limit);
    }
  }
  if (!braces.comma) return RegexQuantifier{static_cast<int>(braces.min), static_cast<int>(braces.min)};
  if (braces.max < 0) return RegexQuantifier{static_cast<int>(braces.min), Expr::kUnbounded};
  if (braces.min > braces.max) return RegexScanner::Malformed(begin, "bad repeat range " + spelling);
  return RegexQuantifier{static_cast<int>(braces.min), static_cast<int>(braces.max)};
}

}  // namespace

bool AtQuantifier(RegexScanner& scanner) {
  const char32_t c = scanner.Peek();
  if (c == '*' || c == '+' || c == '?') return true;
  const size_t start = scanner.position();
  const bool braces = ReadBraces(scanner).has_value();
  scanner.Rewind(start);
  return braces;
}

StatusOr<std::optional<RegexQuantifier>> ParseQuantifier(RegexScanner& scanner, int max_repeat) {
  const size_t begin = scanner.offset();
  RegexQuantifier quantifier;
  if (scanner.Consume('*')) {
    quantifier = {0, Expr::kUnbounded};
  } else if (scanner.Consume('+')) {
    quantifier = {1, Expr::kUnbounded};
  } else if (scanner.Consume('?')) {
    quantifier = {0, 1};
  } else if (const std::optional<Braces> braces = ReadBraces(scanner)) {
    PAGODA_ASSIGN_OR_RETURN(quantifier, CheckCounts(scanner, *braces, begin, max_repeat));
  } else {
    return std::optional<RegexQuantifier>();
  }
  if (!scanner.Consume('?') && scanner.Peek() == '+') {
    scanner.Next();
    const std::string spelling = scanner.Spelling(begin);
    return RegexScanner::Unsupported(begin, "possessive quantifier '" + spelling + "'");
  }
  if (AtQuantifier(scanner)) {
    const std::string spelling = scanner.Spelling(begin);
    return RegexScanner::Malformed(scanner.offset(), "multiple repeat (a quantifier after '" + spelling + "')");
  }
  return std::optional<RegexQuantifier>(quantifier);
}

}  // namespace pagoda::structured
