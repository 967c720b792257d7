#include "pagoda/structured/expr.h"

#include <utility>

#include "pagoda/base/check.h"

namespace pagoda::structured {
namespace {

ExprPtr Make(Expr::Kind kind, std::vector<ExprPtr> children = {}) {
  auto expr = std::make_shared<Expr>();
  expr->kind = kind;
  expr->children = std::move(children);
  return expr;
}

}  // namespace

ExprPtr Bytes(const ByteSet& bytes) {
  auto expr = std::make_shared<Expr>();
  expr->kind = Expr::Kind::kBytes;
  expr->bytes = bytes;
  return expr;
}

ExprPtr Byte(uint8_t byte) { return Bytes(ByteSet::Of(byte)); }

ExprPtr Literal(std::string_view text) {
  std::vector<ExprPtr> bytes;
  bytes.reserve(text.size());
  for (char c : text) bytes.push_back(Byte(static_cast<uint8_t>(c)));
  return bytes.size() == 1 ? bytes[0] : Sequence(std::move(bytes));
}

ExprPtr Sequence(std::vector<ExprPtr> children) { return Make(Expr::Kind::kSequence, std::move(children)); }

ExprPtr Choice(std::vector<ExprPtr> children) { return Make(Expr::Kind::kChoice, std::move(children)); }

ExprPtr Repeat(ExprPtr child, int min, int max) {
  PAGODA_CHECK(min >= 0 && (max == Expr::kUnbounded || max >= min));
  auto expr = std::make_shared<Expr>();
  expr->kind = Expr::Kind::kRepeat;
  expr->children = {std::move(child)};
  expr->min = min;
  expr->max = max;
  return expr;
}

ExprPtr Optional(ExprPtr child) { return Repeat(std::move(child), 0, 1); }
ExprPtr Star(ExprPtr child) { return Repeat(std::move(child), 0, Expr::kUnbounded); }
ExprPtr Plus(ExprPtr child) { return Repeat(std::move(child), 1, Expr::kUnbounded); }

ExprPtr RuleRef(std::string name) {
  auto expr = std::make_shared<Expr>();
  expr->kind = Expr::Kind::kRule;
  expr->rule = std::move(name);
  return expr;
}

ExprPtr Empty() { return Sequence({}); }

ExprPtr CodePoints(const CodePointRanges& ranges) {
  std::vector<ExprPtr> choices;
  ByteSet ascii;  // all one-byte sequences as one terminal
  for (const ByteRangeSequence& sequence : Utf8Sequences(ranges)) {
    if (sequence.size() == 1) {
      ascii.AddAll(ByteSet::Range(sequence[0].first, sequence[0].second));
      continue;
    }
    std::vector<ExprPtr> bytes;
    for (const auto& [first, last] : sequence) bytes.push_back(Bytes(ByteSet::Range(first, last)));
    choices.push_back(Sequence(std::move(bytes)));
  }
  if (!ascii.Empty()) choices.insert(choices.begin(), Bytes(ascii));
  return choices.size() == 1 ? choices[0] : Choice(std::move(choices));
}

ExprPtr CodePointsExcept(const CodePointRanges& ranges) { return CodePoints(Complement(ranges)); }

ExprPtr AnyCodePoint() { return CodePoints({{0, kMaxCodePoint}}); }

}  // namespace pagoda::structured
