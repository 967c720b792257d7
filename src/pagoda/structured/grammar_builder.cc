#include "pagoda/structured/grammar_builder.h"

#include <deque>
#include <utility>

#include "pagoda/structured/grammar_pruning.h"
#include "pagoda/structured/left_recursion.h"

namespace pagoda::structured {
namespace {

// Lowers expressions into `grammar`, one reachable rule at a time.
class Lowering {
 public:
  Lowering(const std::map<std::string, ExprPtr>& rules, const GrammarLimits& limits, Grammar* grammar)
      : rules_(rules), limits_(limits), grammar_(grammar) {}

  Status Run(const std::string& root) {
    PAGODA_ASSIGN_OR_RETURN(grammar_->root, RuleId(root));
    while (!pending_.empty()) {
      const auto [id, body] = pending_.front();
      pending_.pop_front();
      PAGODA_RETURN_IF_ERROR(LowerRuleBody(id, *body));
    }
    return Status::Ok();
  }

 private:
  StatusOr<int32_t> RuleId(const std::string& name) {
    if (auto it = ids_.find(name); it != ids_.end()) return it->second;
    const auto rule = rules_.find(name);
    if (rule == rules_.end()) return InvalidArgumentError("grammar: rule '" + name + "' is used but not defined");
    const int32_t id = NewRule(name);
    ids_.emplace(name, id);
    pending_.emplace_back(id, rule->second);
    return id;
  }

  int32_t NewRule(std::string name) {
    grammar_->rules.push_back({std::move(name), {}});
    return static_cast<int32_t>(grammar_->rules.size() - 1);
  }

  // An auxiliary rule named after the rule being lowered.
  int32_t NewAuxiliaryRule() { return NewRule(grammar_->rules[current_].name + "_" + std::to_string(++aux_count_)); }

  Status LowerRuleBody(int32_t id, const Expr& body) {
    current_ = id;
    aux_count_ = 0;
    if (body.kind != Expr::Kind::kChoice) return AddAlternative(id, body, 0);
    for (const ExprPtr& child : body.children) PAGODA_RETURN_IF_ERROR(AddAlternative(id, *child, 0));
    return Status::Ok();
  }

  Status AddAlternative(int32_t rule, const Expr& expr, int depth) {
    Grammar::Alternative symbols;
    PAGODA_RETURN_IF_ERROR(Append(expr, depth + 1, &symbols));
    return AddAlternativeSymbols(rule, std::move(symbols));
  }

  // Counts `count` more symbols against the limit.
  Status Spend(size_t count) {
    symbols_ += count;
    if (symbols_ <= limits_.max_symbols) return Status::Ok();
    return InvalidArgumentError("grammar: too large (over " + std::to_string(limits_.max_symbols) +
                                " symbols, at rule '" + grammar_->rules[current_].name + "')");
  }

  Status AddAlternativeSymbols(int32_t rule, Grammar::Alternative symbols) {
    PAGODA_RETURN_IF_ERROR(Spend(symbols.size() + 1));  // an empty alternative costs too
    grammar_->rules[rule].alternatives.push_back(std::move(symbols));
    return Status::Ok();
  }

  int32_t ByteSetId(const ByteSet& bytes) {
    const auto [it, inserted] = byte_set_ids_.emplace(bytes, static_cast<int32_t>(grammar_->byte_sets.size()));
    if (inserted) grammar_->byte_sets.push_back(bytes);
    return it->second;
  }

  Status Append(const Expr& expr, int depth, Grammar::Alternative* out) {
    if (depth > limits_.max_depth) {
      return InvalidArgumentError("grammar: expressions nested over " + std::to_string(limits_.max_depth) +
                                  " deep in rule '" + grammar_->rules[current_].name + "'");
    }
    switch (expr.kind) {
      case Expr::Kind::kBytes:
        out->push_back(Symbol::Bytes(ByteSetId(expr.bytes)));
        return Status::Ok();
      case Expr::Kind::kSequence:
        for (const ExprPtr& child : expr.children) PAGODA_RETURN_IF_ERROR(Append(*child, depth + 1, out));
        return Status::Ok();
      case Expr::Kind::kChoice: {
        if (expr.children.size() == 1) return Append(*expr.children[0], depth + 1, out);
        if (const auto it = lowered_.find(&expr); it != lowered_.end()) return AppendLowered(it->second, out);
        const int32_t choice = NewAuxiliaryRule();
        for (const ExprPtr& child : expr.children) PAGODA_RETURN_IF_ERROR(AddAlternative(choice, *child, depth));
        out->push_back(Symbol::Rule(choice));
        lowered_.emplace(&expr, Grammar::Alternative{Symbol::Rule(choice)});
        return Status::Ok();
      }
      case Expr::Kind::kRepeat: {
        if (const auto it = lowered_.find(&expr); it != lowered_.end()) return AppendLowered(it->second, out);
        Grammar::Alternative repeat;
        PAGODA_RETURN_IF_ERROR(AppendRepeat(expr, depth, &repeat));
        out->insert(out->end(), repeat.begin(), repeat.end());
        lowered_.emplace(&expr, std::move(repeat));
        return Status::Ok();
      }
      case Expr::Kind::kRule: {
        PAGODA_ASSIGN_OR_RETURN(const int32_t id, RuleId(expr.rule));
        out->push_back(Symbol::Rule(id));
        return Status::Ok();
      }
    }
    return InternalError("grammar: unknown expression kind");
  }

  // The symbols an expression node was lowered to before: a node that
  // several places share (a nested nullable repeat's rewriting does) is
  // lowered once, or the grammar could grow exponentially with the nesting.
  Status AppendLowered(const Grammar::Alternative& symbols, Grammar::Alternative* out) {
    PAGODA_RETURN_IF_ERROR(Spend(symbols.size()));
    out->insert(out->end(), symbols.begin(), symbols.end());
    return Status::Ok();
  }

  // min copies of the child, then a right-recursive tail: "x*" is
  // T ::= x T | "", and up to k more is O_k ::= x O_(k-1) | "".
  Status AppendRepeat(const Expr& expr, int depth, Grammar::Alternative* out) {
    Grammar::Alternative child;
    PAGODA_RETURN_IF_ERROR(Append(*expr.children[0], depth + 1, &child));
    const bool shares = child.size() > 1 && (expr.min > 1 || expr.max != expr.min);
    if (shares) {  // one rule for the child rather than a copy per use
      const int32_t id = NewAuxiliaryRule();
      PAGODA_RETURN_IF_ERROR(AddAlternativeSymbols(id, std::move(child)));
      child = {Symbol::Rule(id)};
    }
    for (int i = 0; i < expr.min; ++i) {
      PAGODA_RETURN_IF_ERROR(Spend(child.size()));
      out->insert(out->end(), child.begin(), child.end());
    }
    if (expr.max == Expr::kUnbounded) {
      const int32_t tail = NewAuxiliaryRule();
      Grammar::Alternative more = child;
      more.push_back(Symbol::Rule(tail));
      PAGODA_RETURN_IF_ERROR(AddAlternativeSymbols(tail, std::move(more)));
      PAGODA_RETURN_IF_ERROR(AddAlternativeSymbols(tail, {}));
      out->push_back(Symbol::Rule(tail));
      return Status::Ok();
    }
    int32_t previous = -1;
    for (int k = 0; k < expr.max - expr.min; ++k) {
      const int32_t optional = NewAuxiliaryRule();
      Grammar::Alternative more = child;
      if (previous >= 0) more.push_back(Symbol::Rule(previous));
      PAGODA_RETURN_IF_ERROR(AddAlternativeSymbols(optional, std::move(more)));
      PAGODA_RETURN_IF_ERROR(AddAlternativeSymbols(optional, {}));
      previous = optional;
    }
    if (previous >= 0) out->push_back(Symbol::Rule(previous));
    return Status::Ok();
  }

  const std::map<std::string, ExprPtr>& rules_;
  const GrammarLimits& limits_;
  Grammar* grammar_;
  std::map<std::string, int32_t> ids_;
  std::map<ByteSet, int32_t> byte_set_ids_;
  // Choice and repeat nodes already lowered; the rules' expressions outlive
  // the lowering, so their addresses stay unique.
  std::map<const Expr*, Grammar::Alternative> lowered_;
  std::deque<std::pair<int32_t, ExprPtr>> pending_;
  size_t symbols_ = 0;
  int32_t current_ = 0;
  int aux_count_ = 0;
};

}  // namespace

void GrammarBuilder::Define(const std::string& name, ExprPtr body) {
  if (!rules_.emplace(name, std::move(body)).second) defined_twice_.push_back(name);
}

std::string GrammarBuilder::FreshName(const std::string& base) const {
  if (!IsDefined(base)) return base;
  for (int n = 1;; ++n) {
    std::string name = base + "_" + std::to_string(n);
    if (!IsDefined(name)) return name;
  }
}

StatusOr<Grammar> GrammarBuilder::Build(const std::string& root, const GrammarLimits& limits) const {
  if (!defined_twice_.empty()) return InvalidArgumentError("grammar: rule '" + defined_twice_[0] + "' is defined twice");
  Grammar grammar;
  PAGODA_RETURN_IF_ERROR(Lowering(rules_, limits, &grammar).Run(root));
  const std::string unsatisfiable = unsatisfiable_message_.empty()
                                        ? "grammar: rule '" + root + "' derives no finite text (nothing satisfies it)"
                                        : unsatisfiable_message_;
  PAGODA_RETURN_IF_ERROR(PruneUnproductiveRules(&grammar, unsatisfiable));
  PAGODA_RETURN_IF_ERROR(RemoveLeftRecursion(&grammar));
  return grammar;
}

}  // namespace pagoda::structured
