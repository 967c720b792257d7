#include "pagoda/structured/regex_to_expr.h"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pagoda/structured/regex_class.h"
#include "pagoda/structured/regex_escape.h"
#include "pagoda/structured/regex_quantifier.h"
#include "pagoda/structured/regex_repeat.h"
#include "pagoda/structured/regex_scanner.h"

namespace pagoda::structured {
namespace {

bool IsGroupNameStart(char32_t c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool IsGroupNameChar(char32_t c) { return IsGroupNameStart(c) || (c >= '0' && c <= '9'); }

// Recursive descent over the pattern, building the expression as it goes.
// `depth` is the group nesting: 0 is the top level, the only place where
// the anchors ^ and $ may stand (and, since the whole string must match,
// mean nothing).
class RegexParser {
 public:
  RegexParser(RegexScanner& scanner, const RegexLimits& limits) : scanner_(scanner), limits_(limits) {}

  StatusOr<ExprPtr> Run() {
    PAGODA_ASSIGN_OR_RETURN(ExprPtr expr, Alternation(0));
    if (!scanner_.AtEnd()) return RegexScanner::Malformed(scanner_.offset(), "unbalanced ')'");
    return expr;
  }

 private:
  StatusOr<ExprPtr> Alternation(int depth) {
    std::vector<ExprPtr> alternatives;
    do {
      PAGODA_ASSIGN_OR_RETURN(ExprPtr alternative, Alternative(depth));
      alternatives.push_back(std::move(alternative));
    } while (scanner_.Consume('|'));
    return alternatives.size() == 1 ? alternatives[0] : Choice(std::move(alternatives));
  }

  bool AtAlternativeEnd() const {
    const char32_t c = scanner_.Peek();
    return c == RegexScanner::kEnd || c == '|' || c == ')';
  }

  StatusOr<ExprPtr> Alternative(int depth) {
    if (depth == 0) scanner_.Consume('^');
    std::vector<ExprPtr> items;
    while (!AtAlternativeEnd()) {
      if (depth == 0 && scanner_.Peek() == '$') {
        const size_t dollar = scanner_.position();
        scanner_.Next();
        if (AtAlternativeEnd()) break;
        scanner_.Rewind(dollar);  // refused as an item
      }
      PAGODA_ASSIGN_OR_RETURN(ExprPtr item, Quantified(depth));
      items.push_back(std::move(item));
    }
    return items.size() == 1 ? items[0] : Sequence(std::move(items));
  }

  StatusOr<ExprPtr> Quantified(int depth) {
    PAGODA_ASSIGN_OR_RETURN(ExprPtr atom, Atom(depth));
    PAGODA_ASSIGN_OR_RETURN(const std::optional<RegexQuantifier> quantifier,
                            ParseQuantifier(scanner_, limits_.max_repeat));
    if (!quantifier) return atom;
    return RegexRepeat(std::move(atom), quantifier->min, quantifier->max);
  }

  StatusOr<ExprPtr> Atom(int depth) {
    const size_t begin = scanner_.offset();
    const char32_t c = scanner_.Peek();
    switch (c) {
      case '(':
        return Group(depth);
      case '[': {
        PAGODA_ASSIGN_OR_RETURN(const CodePointRanges ranges, ParseClass(scanner_));
        return CodePoints(ranges);
      }
      case '.':
        scanner_.Next();
        return CodePointsExcept({{'\n', '\n'}});
      case '\\': {
        PAGODA_ASSIGN_OR_RETURN(const RegexEscape escape, ParseEscape(scanner_, /*in_class=*/false));
        return CodePoints(escape.is_class ? escape.ranges : CodePointRanges{{escape.code_point, escape.code_point}});
      }
      case '^':
      case '$':
        return RegexScanner::Unsupported(begin, c == '^' ? "anchor '^' other than at the start of the pattern or of a "
                                                           "top-level alternative"
                                                         : "anchor '$' other than at the end of the pattern or of a "
                                                           "top-level alternative");
      default:
        break;
    }
    if (AtQuantifier(scanner_)) return RegexScanner::Malformed(begin, "nothing to repeat");
    scanner_.Next();
    return CodePoints({{c, c}});
  }

  StatusOr<ExprPtr> Group(int depth) {
    const size_t open = scanner_.offset();
    scanner_.Next();  // '('
    if (depth >= limits_.max_nesting) {
      const std::string limit = std::to_string(limits_.max_nesting);
      return RegexScanner::Unsupported(open, "group nested deeper than " + limit);
    }
    if (scanner_.Consume('?')) PAGODA_RETURN_IF_ERROR(GroupExtension(open));
    PAGODA_ASSIGN_OR_RETURN(ExprPtr body, Alternation(depth + 1));
    if (!scanner_.Consume(')')) return RegexScanner::Malformed(open, "unbalanced '(' (missing ')')");
    return body;
  }

  // What follows "(?": a non-capturing or named group (both plain groups
  // here: nothing is captured), or a refused extension.
  Status GroupExtension(size_t open) {
    const char32_t c = scanner_.Next();
    if (c == ':') return Status::Ok();
    if (c == 'P' && scanner_.Consume('<')) return GroupName(open);
    if (c == '<' && scanner_.Peek() != '=' && scanner_.Peek() != '!') return GroupName(open);
    const bool backreference = c == 'P' && scanner_.Peek() == '=';
    if (c == '<' || backreference) scanner_.Next();  // for the spelling
    std::string spelling = "'";
    spelling += scanner_.Spelling(open);
    spelling += "'";
    if (backreference) return RegexScanner::Unsupported(open, "backreference " + spelling);
    switch (c) {
      case '=':
      case '!':
        return RegexScanner::Unsupported(open, "lookahead " + spelling);
      case '<':
        return RegexScanner::Unsupported(open, "lookbehind " + spelling);
      case '>':
        return RegexScanner::Unsupported(open, "atomic group " + spelling);
      case '(':
        return RegexScanner::Unsupported(open, "conditional group " + spelling);
      case '#':
        return RegexScanner::Unsupported(open, "comment group " + spelling);
      default:
        break;
    }
    if (std::u32string_view(U"aiLmsux-").find(c) != std::u32string_view::npos) {
      return RegexScanner::Unsupported(open, "inline flags " + spelling);
    }
    return RegexScanner::Malformed(open, "unknown group extension " + spelling);
  }

  // The name of (?P<name>...) or (?<name>...), after the '<'.
  Status GroupName(size_t open) {
    const bool valid = IsGroupNameStart(scanner_.Peek());
    while (IsGroupNameChar(scanner_.Peek())) scanner_.Next();
    if (scanner_.Consume('>') && valid) return Status::Ok();
    const std::string spelling = scanner_.Spelling(open);
    return RegexScanner::Malformed(open, "bad group name in '" + spelling + "'");
  }

  RegexScanner& scanner_;
  const RegexLimits& limits_;
};

// Whether some string matches `expr`: an empty class such as [^\s\S]
// matches nothing, and neither does a sequence that needs one.
bool MatchesSomething(const Expr& expr) {
  switch (expr.kind) {
    case Expr::Kind::kBytes:
      return !expr.bytes.Empty();
    case Expr::Kind::kSequence:
      for (const ExprPtr& child : expr.children) {
        if (!MatchesSomething(*child)) return false;
      }
      return true;
    case Expr::Kind::kChoice:
      for (const ExprPtr& child : expr.children) {
        if (MatchesSomething(*child)) return true;
      }
      return false;
    case Expr::Kind::kRepeat:
      return expr.min == 0 || MatchesSomething(*expr.children[0]);
    case Expr::Kind::kRule:
      return true;
  }
  return true;
}

}  // namespace

StatusOr<ExprPtr> RegexToExpr(std::string_view pattern, const RegexLimits& limits) {
  if (pattern.size() > limits.max_pattern_bytes) {
    return InvalidArgumentError("regex: pattern of " + std::to_string(pattern.size()) + " bytes is over the limit of " +
                                std::to_string(limits.max_pattern_bytes));
  }
  PAGODA_ASSIGN_OR_RETURN(RegexScanner scanner, RegexScanner::Decode(pattern));
  PAGODA_ASSIGN_OR_RETURN(ExprPtr expr, RegexParser(scanner, limits).Run());
  // Branches that match nothing are dropped when the grammar is built; a
  // pattern that is nothing but such branches is refused here, in its terms.
  if (!MatchesSomething(*expr)) return InvalidArgumentError("regex: the pattern matches no string");
  return expr;
}

}  // namespace pagoda::structured
