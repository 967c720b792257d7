#include "pagoda/structured/lark_parser.h"

#include <cstdint>
#include <utility>

#include "pagoda/structured/lark_common.h"
#include "pagoda/structured/lark_literal.h"
#include "pagoda/structured/lark_regex.h"

namespace pagoda::structured {
namespace {

using Kind = LarkToken::Kind;

bool IsLower(char c) { return c >= 'a' && c <= 'z'; }
bool IsUpper(char c) { return c >= 'A' && c <= 'Z'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Lark's rule names: _?[a-z][_a-z0-9]*.
bool IsRuleName(std::string_view name) {
  if (name.starts_with('_')) name.remove_prefix(1);
  if (name.empty() || !IsLower(name[0])) return false;
  for (const char c : name) {
    if (!IsLower(c) && !IsDigit(c) && c != '_') return false;
  }
  return true;
}

// Lark's terminal names: _?[A-Z][_A-Z0-9]*.
bool IsTerminalName(std::string_view name) {
  if (name.starts_with('_')) name.remove_prefix(1);
  if (name.empty() || !IsUpper(name[0])) return false;
  for (const char c : name) {
    if (!IsUpper(c) && !IsDigit(c) && c != '_') return false;
  }
  return true;
}

// 'text' (its start, when long: LarkExcerpt), appended piece by piece: GCC
// 12 warns (-Wrestrict, wrongly) on "'" + std::string(text).
std::string Quoted(std::string_view text) {
  std::string quoted = "'";
  quoted += LarkExcerpt(text);
  quoted += "'";
  return quoted;
}

Status BadName(const LarkToken& token) {
  return LarkError(token.position, Quoted(token.text) +
                                       " is neither a rule name (lowercase letters, digits and '_', as in "
                                       "my_rule) nor a terminal name (uppercase, as in MY_TERMINAL)");
}

// What a token is, for messages.
std::string Describe(const LarkToken& token) {
  switch (token.kind) {
    case Kind::kEnd: return "the end of the grammar";
    case Kind::kNewline: return "the end of the line";
    default: return Quoted(token.text);
  }
}

class Parser {
 public:
  Parser(const std::vector<LarkToken>& tokens, const LarkOptions& options) : tokens_(tokens), options_(options) {}

  StatusOr<LarkSyntax> Run() {
    for (const LarkToken& token : tokens_) {
      if (token.kind == Kind::kDirective && token.text == "%ignore") has_ignore_ = true;
    }
    while (!At(Kind::kEnd)) {
      if (At(Kind::kNewline)) {
        ++next_;
        continue;
      }
      PAGODA_RETURN_IF_ERROR(Statement());
    }
    return std::move(syntax_);
  }

 private:
  // Where a name is used, for what it may name and how a rule's terminals
  // are read.
  enum class Context { kRule, kTerminal, kIgnore };

  const LarkToken& Peek(size_t ahead = 0) const {
    return tokens_[next_ + ahead < tokens_.size() ? next_ + ahead : tokens_.size() - 1];
  }
  bool At(Kind kind) const { return Peek().kind == kind; }
  bool AtPunct(std::string_view punct, size_t ahead = 0) const {
    return Peek(ahead).kind == Kind::kPunct && Peek(ahead).text == punct;
  }
  bool ConsumePunct(std::string_view punct) {
    if (!AtPunct(punct)) return false;
    ++next_;
    return true;
  }

  // A definition or a directive ends at its line's end.
  Status EndOfLine(const std::string& after) {
    if (At(Kind::kEnd)) return Status::Ok();
    if (At(Kind::kNewline)) {
      ++next_;
      return Status::Ok();
    }
    const LarkToken& token = Peek();
    if (AtPunct(")")) return LarkError(token.position, "')' without a matching '('");
    if (AtPunct("]")) return LarkError(token.position, "']' without a matching '['");
    if (AtPunct(":")) {
      return LarkError(token.position, "unexpected ':' (each definition 'name: ...' must begin its own line)");
    }
    return LarkError(token.position, "expected the end of the line after " + after + ", found " + Describe(token));
  }

  // ---- Definitions.

  Status Statement() {
    const LarkToken& first = Peek();
    if (first.kind == Kind::kDirective) return Directive();
    std::string modifiers;
    while (AtPunct("?") || AtPunct("!")) modifiers += Peek(0).text, ++next_;
    const LarkToken& name = Peek();
    if (!modifiers.empty()) {
      if (name.kind != Kind::kName || !name.touches_previous || !IsRuleName(name.text)) {
        return LarkError(first.position,
                         "rule modifier '" + modifiers + "' must stand right before a rule's name, as in '?name: ...'");
      }
      if (modifiers != "?" && modifiers != "!" && modifiers != "?!" && modifiers != "!?") {
        return LarkError(first.position, "unknown rule modifier '" + modifiers + "' (Lark has ?, !, ?! and !?)");
      }
    }
    if (name.kind != Kind::kName) {
      return LarkError(name.position, "expected a rule or terminal definition ('name: ...'), found " + Describe(name));
    }
    const bool terminal = IsTerminalName(name.text);
    if (!terminal && !IsRuleName(name.text)) return BadName(name);
    ++next_;
    if (AtPunct("{")) {
      return LarkError(name.position, "templates ('" + std::string(name.text) + "{...}: ...') are not supported");
    }
    if (ConsumePunct(".")) {  // a priority: it changes which parse Lark picks, not what matches
      if (!ConsumePunct("+")) ConsumePunct("-");
      if (!At(Kind::kNumber)) {
        return LarkError(Peek().position, "expected a priority number after '" + std::string(name.text) + ".', found " +
                                              Describe(Peek()));
      }
      ++next_;
    }
    if (AtPunct("::=")) {
      return LarkError(Peek().position, "'::=' is GBNF: a Lark definition is written 'name: ...'");
    }
    if (!ConsumePunct(":")) {
      return LarkError(Peek().position,
                       "expected ':' after '" + std::string(name.text) + "', found " + Describe(Peek()));
    }
    context_ = terminal ? Context::kTerminal : Context::kRule;
    user_ = static_cast<int>(syntax_.definitions.size());
    PAGODA_ASSIGN_OR_RETURN(ExprPtr body, Expansions());
    PAGODA_RETURN_IF_ERROR(EndOfLine("the definition of '" + std::string(name.text) + "'"));
    syntax_.definitions.push_back({std::string(name.text), terminal, name.position, std::move(body)});
    return Status::Ok();
  }

  Status Directive() {
    const LarkToken& directive = Peek();
    if (directive.text == "%import") return Import();
    if (directive.text == "%ignore") {
      ++next_;
      context_ = Context::kIgnore;
      user_ = -1;
      PAGODA_ASSIGN_OR_RETURN(ExprPtr ignored, Expansions());
      PAGODA_RETURN_IF_ERROR(EndOfLine("'%ignore ...'"));
      syntax_.ignores.push_back({directive.position, std::move(ignored)});
      return Status::Ok();
    }
    if (directive.text == "%declare") {
      return LarkError(directive.position,
                       "'%declare' is not supported: a declared terminal has no definition to match");
    }
    if (directive.text == "%override" || directive.text == "%extend") {
      return LarkError(directive.position, "'" + std::string(directive.text) +
                                               "' is not supported: only common.lark's terminals are imported, "
                                               "and they are used as they are");
    }
    return LarkError(directive.position, "unknown directive '" + std::string(directive.text) +
                                             "' (Lark has %import, %ignore, %declare, %override and %extend)");
  }

  // %import common.NAME [-> OTHER] | %import common (NAME, ...)
  Status Import() {
    ++next_;  // %import
    const LarkToken& module = Peek();
    if (module.kind != Kind::kName || module.text != "common") {
      return LarkError(module.position,
                       "only common.lark's terminals can be imported ('%import common.NAME'), not " +
                           (module.kind == Kind::kName ? "'" + std::string(module.text) + "'" : Describe(module)));
    }
    ++next_;
    if (ConsumePunct(".")) {
      const LarkToken& name = Peek();
      if (name.kind != Kind::kName) {
        return LarkError(name.position, "expected a terminal name after 'common.', found " + Describe(name));
      }
      ++next_;
      if (AtPunct(".")) return LarkError(Peek().position, "common.lark has no nested modules");
      const LarkToken* as = &name;
      if (ConsumePunct("->")) {
        as = &Peek();
        if (as->kind != Kind::kName || !IsTerminalName(as->text)) {
          return LarkError(as->position,
                           "a terminal is imported under a terminal name (uppercase), not " + Describe(*as));
        }
        ++next_;
      }
      PAGODA_RETURN_IF_ERROR(ImportName(name, *as));
    } else if (ConsumePunct("(")) {
      do {
        const LarkToken& name = Peek();
        if (name.kind != Kind::kName) {
          return LarkError(name.position,
                           "expected a terminal name in '%import common (...)', found " + Describe(name));
        }
        ++next_;
        PAGODA_RETURN_IF_ERROR(ImportName(name, name));
      } while (ConsumePunct(","));
      if (!ConsumePunct(")")) {
        return LarkError(Peek().position, "expected ',' or ')' in '%import common (...)', found " + Describe(Peek()));
      }
    } else {
      return LarkError(Peek().position,
                       "expected '.NAME' or '(NAME, ...)' after '%import common', found " + Describe(Peek()));
    }
    return EndOfLine("'%import ...'");
  }

  Status ImportName(const LarkToken& name, const LarkToken& as) {
    if (LarkCommonPattern(name.text).empty()) {
      return LarkError(name.position, "common.lark has no terminal '" + std::string(name.text) + "' (it has " +
                                          std::string(LarkCommonNames()) + ")");
    }
    syntax_.imports.push_back({std::string(name.text), std::string(as.text), as.position});
    return Status::Ok();
  }

  // ---- Expressions.

  // alternatives separated by '|'
  StatusOr<ExprPtr> Expansions() {
    std::vector<ExprPtr> alternatives;
    do {
      PAGODA_ASSIGN_OR_RETURN(ExprPtr alternative, Alias());
      alternatives.push_back(std::move(alternative));
    } while (ConsumePunct("|"));
    return alternatives.size() == 1 ? alternatives[0] : Choice(std::move(alternatives));
  }

  // A sequence, then maybe "-> name" (which names the tree node Lark
  // builds, and so changes nothing here).
  StatusOr<ExprPtr> Alias() {
    PAGODA_ASSIGN_OR_RETURN(ExprPtr sequence, Expansion());
    if (!AtPunct("->")) return sequence;
    const LarkToken& arrow = Peek();
    if (context_ != Context::kRule) {
      return LarkError(arrow.position, "aliases ('-> name') are allowed only in rules");
    }
    if (depth_ > 0) {
      return LarkError(arrow.position,
                       "an alias ('-> name') inside a group is not supported (Lark takes one only at the end of a "
                       "rule's alternative)");
    }
    ++next_;
    if (!At(Kind::kName) || !IsRuleName(Peek().text)) {
      return LarkError(Peek().position, "expected a lowercase name after '->', found " + Describe(Peek()));
    }
    ++next_;
    return sequence;
  }

  bool AtExpansionEnd() const {
    return At(Kind::kNewline) || At(Kind::kEnd) || AtPunct("|") || AtPunct(")") || AtPunct("]") || AtPunct("->");
  }

  StatusOr<ExprPtr> Expansion() {
    std::vector<ExprPtr> items;
    while (!AtExpansionEnd()) {
      PAGODA_ASSIGN_OR_RETURN(ExprPtr item, Quantified());
      items.push_back(std::move(item));
    }
    if (items.empty()) return Empty();
    return items.size() == 1 ? items[0] : Sequence(std::move(items));
  }

  bool AtQuantifier() const { return AtPunct("*") || AtPunct("+") || AtPunct("?") || AtPunct("~"); }

  StatusOr<ExprPtr> Quantified() {
    PAGODA_ASSIGN_OR_RETURN(ExprPtr atom, Atom());
    if (!AtQuantifier()) return atom;
    const LarkToken& op = Peek();
    if (op.text == "?" && Peek(1).kind == Kind::kName && Peek(1).touches_previous &&
        (IsLower(Peek(1).text[0]) || Peek(1).text[0] == '_')) {
      return LarkError(op.position, "'?" + std::string(Peek(1).text) +
                                        "' reads as a rule modifier in Lark: put a space between '?' and the name");
    }
    ++next_;
    if (op.text == "*") {
      atom = Star(std::move(atom));
    } else if (op.text == "+") {
      atom = Plus(std::move(atom));
    } else if (op.text == "?") {
      atom = Optional(std::move(atom));
    } else {
      PAGODA_ASSIGN_OR_RETURN(const int min, Count());
      int max = min;
      if (ConsumePunct("..")) {
        const LarkPosition at = Peek().position;
        PAGODA_ASSIGN_OR_RETURN(max, Count());
        if (max < min) {
          return LarkError(at, "repeat range ~ " + std::to_string(min) + ".." + std::to_string(max) +
                                   " has its upper bound below its lower bound");
        }
      }
      atom = Repeat(std::move(atom), min, max);
    }
    if (AtQuantifier()) {
      return LarkError(Peek().position, "a second quantifier '" + std::string(Peek().text) +
                                            "' on one element: put the quantified element in parentheses");
    }
    return atom;
  }

  // The count after '~' or '..': digits, maybe after '+'.
  StatusOr<int> Count() {
    if (AtPunct("+") && Peek(1).kind == Kind::kNumber && Peek(1).touches_previous) ++next_;
    const LarkToken& token = Peek();
    if (AtPunct("-")) return LarkError(token.position, "repeat counts cannot be negative");
    if (token.kind != Kind::kNumber) {
      return LarkError(token.position, "expected a repeat count, found " + Describe(token));
    }
    ++next_;
    int64_t value = 0;
    for (const char c : token.text) {
      value = value * 10 + (c - '0');
      if (value > options_.max_repeat) {
        return LarkError(token.position, "repeat count " + std::string(token.text) + " is over the limit of " +
                                             std::to_string(options_.max_repeat));
      }
    }
    return static_cast<int>(value);
  }

  // A terminal that a rule reads: after any run of the ignored terminals.
  ExprPtr TerminalUse(ExprPtr terminal) const {
    if (context_ != Context::kRule || !has_ignore_) return terminal;
    return Sequence({RuleRef(std::string(kLarkIgnoreRule)), std::move(terminal)});
  }

  StatusOr<ExprPtr> Atom() {
    const LarkToken& token = Peek();
    switch (token.kind) {
      case Kind::kString: return StringOrRange();
      case Kind::kRegex: {
        ++next_;
        auto regex = LarkRegexExpr(token.text, options_.regex);
        if (!regex.ok()) {
          return LarkError(token.position,
                           "regular expression " + LarkExcerpt(token.text) + ": " + regex.status().message());
        }
        if (context_ != Context::kTerminal)
          syntax_.anonymous.push_back({std::string(token.text), token.position, *regex});
        return TerminalUse(*regex);
      }
      case Kind::kName: return Name();
      case Kind::kPunct:
        if (token.text == "(" || token.text == "[") return Group();
        break;
      default: break;
    }
    if (token.kind == Kind::kPunct) {
      const std::string_view p = token.text;
      if (p == "*" || p == "+" || p == "?" || p == "~") {
        return LarkError(token.position, "quantifier '" + std::string(p) + "' without an element before it");
      }
      if (p == ":") {
        return LarkError(token.position, "unexpected ':' (each definition 'name: ...' must begin its own line)");
      }
      if (p == "::=") return LarkError(token.position, "'::=' is GBNF: a Lark definition is written 'name: ...'");
      if (p == "{")
        return LarkError(token.position, "'{' without a template name before it (templates are not supported)");
    }
    if (token.kind == Kind::kDirective) {
      return LarkError(token.position, "'" + std::string(token.text) + "' must begin its own line");
    }
    return LarkError(
        token.position,
        "expected an element (a string, a regular expression, a name, '(' or '['), found " + Describe(token));
  }

  StatusOr<ExprPtr> StringOrRange() {
    const LarkToken& first = Peek();
    ++next_;
    if (!ConsumePunct("..")) {
      auto literal = LarkStringExpr(first.text);
      if (!literal.ok()) {
        return LarkError(first.position, "string " + LarkExcerpt(first.text) + ": " + literal.status().message());
      }
      return TerminalUse(*literal);
    }
    const LarkToken& last = Peek();
    if (last.kind != Kind::kString) {
      return LarkError(last.position, "expected a string after '..', found " + Describe(last));
    }
    ++next_;
    auto range = LarkRangeExpr(first.text, last.text);
    if (!range.ok()) {
      return LarkError(first.position, "range " + LarkExcerpt(first.text) + ".." + LarkExcerpt(last.text) + ": " +
                                           range.status().message());
    }
    return TerminalUse(*range);
  }

  StatusOr<ExprPtr> Name() {
    const LarkToken& name = Peek();
    ++next_;
    const bool terminal = IsTerminalName(name.text);
    if (!terminal && !IsRuleName(name.text)) return BadName(name);
    if (AtPunct("{")) {
      return LarkError(name.position, "templates ('" + std::string(name.text) + "{...}') are not supported");
    }
    if (!terminal && context_ == Context::kTerminal) {
      return LarkError(name.position, "rule '" + std::string(name.text) +
                                          "' is used in a terminal: terminals may use only terminals, strings, "
                                          "ranges and regular expressions");
    }
    if (!terminal && context_ == Context::kIgnore) {
      return LarkError(name.position,
                       "rule '" + std::string(name.text) + "' cannot be ignored: %ignore takes terminals");
    }
    syntax_.references.push_back({std::string(name.text), name.position, user_});
    ExprPtr ref = RuleRef(std::string(name.text));
    return terminal ? TerminalUse(std::move(ref)) : ref;
  }

  // ( ... ) or [ ... ]: a group or an optional; neither may span a line
  // except through lines that begin with '|'.
  StatusOr<ExprPtr> Group() {
    const LarkToken& open = Peek();
    const bool optional = open.text == "[";
    if (depth_ >= options_.max_nesting) {
      return LarkError(open.position, "groups nested over " + std::to_string(options_.max_nesting) + " deep");
    }
    ++next_;
    ++depth_;
    PAGODA_ASSIGN_OR_RETURN(ExprPtr inner, Expansions());
    --depth_;
    if (!ConsumePunct(optional ? "]" : ")")) {
      if (At(Kind::kNewline) || At(Kind::kEnd)) {
        return LarkError(open.position, "'" + std::string(open.text) +
                                            "' is not closed on its line (a definition goes on to the next line "
                                            "only when that line begins with '|')");
      }
      return LarkError(Peek().position,
                       std::string("expected '") + (optional ? "]" : ")") + "', found " + Describe(Peek()));
    }
    return optional ? Optional(std::move(inner)) : inner;
  }

  const std::vector<LarkToken>& tokens_;
  const LarkOptions& options_;
  size_t next_ = 0;
  bool has_ignore_ = false;
  Context context_ = Context::kRule;
  int user_ = -1;
  int depth_ = 0;
  LarkSyntax syntax_;
};

}  // namespace

StatusOr<LarkSyntax> ParseLark(std::string_view text, const LarkOptions& options) {
  PAGODA_ASSIGN_OR_RETURN(const std::vector<LarkToken> tokens, LexLark(text));
  return Parser(tokens, options).Run();
}

}  // namespace pagoda::structured
