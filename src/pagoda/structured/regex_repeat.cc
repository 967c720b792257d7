#include "pagoda/structured/regex_repeat.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace pagoda::structured {
namespace {

// The choice of `choices`, or nullptr (matches nothing) when there are none.
ExprPtr OneOf(std::vector<ExprPtr> choices) {
  if (choices.empty()) return nullptr;
  return choices.size() == 1 ? choices[0] : Choice(std::move(choices));
}

ExprPtr NonEmpty(const ExprPtr& expr);

// The non-empty strings of items[begin, end), all nullable. The first item
// that matches something non-empty decides, so NonEmpty(A B) is
// NonEmpty(A) B | NonEmpty(B); splitting in halves keeps the copies of the
// items that follow at n log n rather than n^2.
ExprPtr NonEmptySequence(const std::vector<ExprPtr>& items, size_t begin, size_t end) {
  if (end - begin == 1) return NonEmpty(items[begin]);
  const size_t middle = begin + (end - begin) / 2;
  std::vector<ExprPtr> choices;
  if (ExprPtr left = NonEmptySequence(items, begin, middle)) {
    std::vector<ExprPtr> sequence = {std::move(left)};
    sequence.insert(sequence.end(), items.begin() + static_cast<std::ptrdiff_t>(middle),
                    items.begin() + static_cast<std::ptrdiff_t>(end));
    choices.push_back(Sequence(std::move(sequence)));
  }
  if (ExprPtr right = NonEmptySequence(items, middle, end)) choices.push_back(std::move(right));
  return OneOf(std::move(choices));
}

// The strings of `expr` but the empty one, or nullptr when none is left.
ExprPtr NonEmpty(const ExprPtr& expr) {
  if (!Nullable(*expr)) return expr;
  switch (expr->kind) {
    case Expr::Kind::kSequence:
      return expr->children.empty() ? nullptr : NonEmptySequence(expr->children, 0, expr->children.size());
    case Expr::Kind::kChoice: {
      std::vector<ExprPtr> choices;
      for (const ExprPtr& child : expr->children) {
        if (ExprPtr non_empty = NonEmpty(child)) choices.push_back(std::move(non_empty));
      }
      return OneOf(std::move(choices));
    }
    case Expr::Kind::kRepeat: {  // x{n,m} = (NonEmpty(x)){0,m} when nullable
      if (expr->max == 0) return nullptr;
      ExprPtr body = NonEmpty(expr->children[0]);
      if (!body || expr->max == 1) return body;
      return Repeat(std::move(body), 1, expr->max);
    }
    default:  // bytes and rule references are never nullable here
      return expr;
  }
}

}  // namespace

bool Nullable(const Expr& expr) {
  const auto nullable = [](const ExprPtr& child) { return Nullable(*child); };
  switch (expr.kind) {
    case Expr::Kind::kBytes:
      return false;
    case Expr::Kind::kSequence:
      return std::all_of(expr.children.begin(), expr.children.end(), nullable);
    case Expr::Kind::kChoice:
      return std::any_of(expr.children.begin(), expr.children.end(), nullable);
    case Expr::Kind::kRepeat:
      return expr.min == 0 || Nullable(*expr.children[0]);
    case Expr::Kind::kRule:  // a regex refers to no rules
      return false;
  }
  return false;
}

ExprPtr RegexRepeat(ExprPtr body, int min, int max) {
  if (max == 0) return Empty();
  if (min == 1 && max == 1) return body;
  if (Nullable(*body)) {
    body = NonEmpty(body);
    if (!body) return Empty();
    min = 0;
  }
  // (y{1,k}){n,} is y{n,}: one loop rather than two that split each run of
  // y in many ways, all of which the matcher would follow.
  if (max == Expr::kUnbounded && body->kind == Expr::Kind::kRepeat && body->min == 1) {
    return Repeat(body->children[0], min, max);
  }
  return Repeat(std::move(body), min, max);
}

}  // namespace pagoda::structured
