#include "pagoda/structured/lark.h"

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "pagoda/structured/grammar_build_error.h"
#include "pagoda/structured/lark_common.h"
#include "pagoda/structured/lark_parser.h"

namespace pagoda::structured {
namespace {

// The rule matching starts at when the grammar has %ignore lines: the
// start rule, then any ignored run after the text's last terminal.
constexpr std::string_view kStartRule = "%start";

struct Named {
  bool terminal = false;
  LarkPosition position;  // of the definition, or of the import
  ExprPtr body;
  std::string common;  // the common.lark name, for an import
};

std::string Where(LarkPosition at) {
  return "line " + std::to_string(at.line) + ", column " + std::to_string(at.column);
}

class Lowering {
 public:
  Lowering(const LarkSyntax& syntax, const LarkOptions& options) : syntax_(syntax), options_(options) {}

  StatusOr<Grammar> Run() {
    PAGODA_RETURN_IF_ERROR(CollectNames());
    PAGODA_RETURN_IF_ERROR(CheckReferences());
    PAGODA_RETURN_IF_ERROR(CheckTerminalChains());
    PAGODA_RETURN_IF_ERROR(CheckEmptyTerminals());
    PAGODA_RETURN_IF_ERROR(CheckStart());
    return Build();
  }

 private:
  static std::string Kind(bool terminal) { return terminal ? "terminal" : "rule"; }

  Status CollectNames() {
    for (const LarkDefinition& definition : syntax_.definitions) {
      const auto [it, inserted] =
          names_.emplace(definition.name, Named{definition.terminal, definition.position, definition.body, ""});
      if (!inserted) {
        return LarkError(definition.position, Kind(definition.terminal) + " '" + definition.name +
                                                  "' is defined twice (first at " + Where(it->second.position) + ")");
      }
    }
    for (const LarkImport& import : syntax_.imports) {
      if (const auto it = names_.find(import.as); it != names_.end()) {
        if (it->second.common == import.name) continue;  // imported again
        return LarkError(import.position,
                         "terminal '" + import.as + "' is defined twice (first at " + Where(it->second.position) + ")");
      }
      auto body = RegexToExpr(LarkCommonPattern(import.name));
      if (!body.ok()) return InternalError("lark: common." + import.name + ": " + body.status().message());
      names_.emplace(import.as, Named{true, import.position, *body, import.name});
    }
    return Status::Ok();
  }

  Status CheckReferences() const {
    for (const LarkReference& reference : syntax_.references) {
      if (names_.contains(reference.name)) continue;
      const bool terminal = reference.name.find_first_not_of('_') != std::string::npos &&
                            reference.name[reference.name.find_first_not_of('_')] < 'a';
      std::string what = Kind(terminal) + " '" + reference.name + "' is used but not defined";
      if (!LarkCommonPattern(reference.name).empty()) what += " (import it: '%import common." + reference.name + "')";
      return LarkError(reference.position, what);
    }
    return Status::Ok();
  }

  // The terminals each terminal definition uses.
  std::map<std::string, std::vector<std::string>> TerminalUses() const {
    std::map<std::string, std::vector<std::string>> uses;
    for (const LarkReference& reference : syntax_.references) {
      if (reference.user < 0) continue;
      const LarkDefinition& user = syntax_.definitions[reference.user];
      if (user.terminal) uses[user.name].push_back(reference.name);
    }
    return uses;
  }

  // Lark inlines terminals into the terminals that use them, so they may
  // not recurse; and chains of terminals using terminals are refused past
  // options_.max_terminal_depth. The walk keeps its own stack, so a chain
  // of any length costs no call stack, and it leaves the terminal
  // definitions in terminal_order_, each after the terminals it uses.
  Status CheckTerminalChains() {
    const auto uses = TerminalUses();
    std::map<std::string, size_t> depth;  // done: 1 + the deepest chain it uses
    std::map<std::string, size_t> on_path;  // the names being walked: their index in `path`
    std::vector<std::pair<std::string, size_t>> path;  // a name, and the next of its uses to walk
    const std::vector<std::string> none;
    const auto uses_of = [&](const std::string& name) -> const std::vector<std::string>& {
      const auto it = uses.find(name);
      return it == uses.end() ? none : it->second;
    };
    for (const LarkDefinition& definition : syntax_.definitions) {
      if (!definition.terminal || depth.contains(definition.name)) continue;
      path.emplace_back(definition.name, 0);
      on_path[definition.name] = 0;
      while (!path.empty()) {
        auto& [name, next] = path.back();
        const std::vector<std::string>& used = uses_of(name);
        if (next < used.size()) {
          const std::string& child = used[next++];
          if (depth.contains(child)) continue;
          if (const auto cycle_at = on_path.find(child); cycle_at != on_path.end()) {
            std::string cycle;
            for (size_t i = cycle_at->second; i < path.size(); ++i) cycle += path[i].first + " -> ";
            cycle += child;
            return LarkError(names_.at(child).position,
                             "terminal '" + child + "' is recursive (" + cycle + "): only rules may recurse");
          }
          on_path[child] = path.size();
          path.emplace_back(child, 0);
          continue;
        }
        size_t deepest = 0;
        for (const std::string& child : used) deepest = std::max(deepest, depth[child]);
        depth[name] = deepest + 1;
        terminal_order_.push_back(name);
        on_path.erase(name);
        path.pop_back();
      }
    }
    // The deepest chain's head (the first defined, among equals) is named.
    const std::string* deepest = nullptr;
    for (const LarkDefinition& definition : syntax_.definitions) {
      if (definition.terminal && (deepest == nullptr || depth[definition.name] > depth[*deepest])) {
        deepest = &definition.name;
      }
    }
    if (deepest == nullptr || depth[*deepest] <= options_.max_terminal_depth) return Status::Ok();
    std::string chain = *deepest;  // its first links
    const std::string* at = deepest;
    for (int links = 0; !uses_of(*at).empty(); ++links) {
      if (links == 4) {
        chain += " -> ...";
        break;
      }
      const auto& used = uses_of(*at);
      at = &*std::max_element(used.begin(), used.end(),
                              [&](const std::string& a, const std::string& b) { return depth[a] < depth[b]; });
      chain += " -> " + *at;
    }
    return LarkError(names_.at(*deepest).position,
                     "terminal '" + *deepest + "' uses terminals nested " + std::to_string(depth[*deepest]) +
                         " deep (" + chain + "), over the limit of " + std::to_string(options_.max_terminal_depth));
  }

  // Whether `expr` (in a terminal, or an ignored one) matches the empty
  // string. The terminals it uses are looked up, never descended into: their
  // answers are computed first, in terminal_order_.
  bool Nullable(const Expr& expr) const {
    switch (expr.kind) {
      case Expr::Kind::kBytes: return false;
      case Expr::Kind::kSequence:
        for (const ExprPtr& child : expr.children) {
          if (!Nullable(*child)) return false;
        }
        return true;
      case Expr::Kind::kChoice:
        for (const ExprPtr& child : expr.children) {
          if (Nullable(*child)) return true;
        }
        return false;
      case Expr::Kind::kRepeat: return expr.min == 0 || Nullable(*expr.children[0]);
      case Expr::Kind::kRule: return NullableTerminal(expr.rule);
    }
    return false;
  }

  bool NullableTerminal(const std::string& name) const {
    const auto it = nullable_.find(name);
    return it != nullable_.end() ? it->second : Nullable(*names_.at(name).body);  // an import: no terminals inside
  }

  // Lark's Earley parser refuses terminals that match the empty string
  // (those that rules use or %ignore names; a terminal used only inside
  // other terminals may).
  Status CheckEmptyTerminals() {
    for (const std::string& name : terminal_order_) nullable_[name] = Nullable(*names_.at(name).body);
    for (const LarkReference& reference : syntax_.references) {
      const bool from_rule = reference.user < 0 || !syntax_.definitions[reference.user].terminal;
      const Named& named = names_.at(reference.name);
      if (!from_rule || !named.terminal || !NullableTerminal(reference.name)) continue;
      return LarkError(named.position, "terminal '" + reference.name +
                                           "' matches the empty string, which Lark does not allow for a terminal "
                                           "that a rule uses or %ignore names");
    }
    for (const LarkAnonymousTerminal& anonymous : syntax_.anonymous) {
      if (Nullable(*anonymous.expr)) {
        return LarkError(anonymous.position, "regular expression " + LarkExcerpt(anonymous.spelling) +
                                                 " matches the empty string, which Lark does not allow for a "
                                                 "terminal");
      }
    }
    for (const LarkIgnore& ignore : syntax_.ignores) {
      if (Nullable(*ignore.expr)) {
        return LarkError(ignore.position,
                         "what '%ignore' names matches the empty string, which Lark does not allow for a terminal");
      }
    }
    return Status::Ok();
  }

  Status CheckStart() const {
    const auto it = names_.find(options_.start);
    if (it != names_.end() && !it->second.terminal) return Status::Ok();
    if (syntax_.definitions.empty()) {
      return LarkError({}, "the grammar has no rules: it needs '" + options_.start + ": ...'");
    }
    return LarkError(syntax_.definitions[0].position,
                     "no rule '" + options_.start + "', where matching starts: define '" + options_.start +
                         ": ...' (Lark starts at '" + options_.start + "', not at the first rule)");
  }

  StatusOr<Grammar> Build() const {
    GrammarBuilder builder;
    std::map<std::string, LarkPosition> positions;
    for (const auto& [name, named] : names_) {
      builder.Define(name, named.body);
      positions[name] = named.position;
    }
    std::string root = options_.start;
    if (!syntax_.ignores.empty()) {
      std::vector<ExprPtr> ignored;
      for (const LarkIgnore& ignore : syntax_.ignores) ignored.push_back(ignore.expr);
      builder.Define(std::string(kLarkIgnoreRule), Star(ignored.size() == 1 ? ignored[0] : Choice(ignored)));
      positions[std::string(kLarkIgnoreRule)] = syntax_.ignores[0].position;
      root = std::string(kStartRule);
      builder.Define(root, Sequence({RuleRef(options_.start), RuleRef(std::string(kLarkIgnoreRule))}));
      positions[root] = names_.at(options_.start).position;
    }
    auto grammar = builder.Build(root, options_.limits);
    if (grammar.ok() || grammar.status().code() != StatusCode::kInvalidArgument) return grammar;
    const BuilderRefusal refusal =
        ReadBuilderRefusal(grammar.status(), [&](const std::string& name) { return positions.contains(name); });
    return LarkError(refusal.rule.empty() ? LarkPosition{} : positions.at(refusal.rule), refusal.what);
  }

  const LarkSyntax& syntax_;
  const LarkOptions& options_;
  std::map<std::string, Named> names_;
  std::vector<std::string> terminal_order_;  // terminals after those they use
  std::map<std::string, bool> nullable_;
};

}  // namespace

StatusOr<Grammar> LarkToGrammar(std::string_view text, const LarkOptions& options) {
  PAGODA_ASSIGN_OR_RETURN(const LarkSyntax syntax, ParseLark(text, options));
  return Lowering(syntax, options).Run();
}

}  // namespace pagoda::structured
