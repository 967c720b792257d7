#include "pagoda/structured/json_integer_multiples.h"

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "pagoda/structured/json_schema_converter.h"

namespace pagoda::structured {
namespace {

using Wide = __int128;

ExprPtr Digit(int d) { return Byte(static_cast<uint8_t>('0' + d)); }

int DecimalWidth(uint64_t value) {
  int width = 1;
  for (; value >= 10; value /= 10) ++width;
  return width;
}

uint64_t PowerOfTen(int n) {
  uint64_t value = 1;
  for (int i = 0; i < n; ++i) value *= 10;
  return value;
}

std::vector<int> DigitsOf(uint64_t value, int width) {
  std::vector<int> digits(static_cast<size_t>(width));
  for (int i = width - 1; i >= 0; --i, value /= 10) digits[static_cast<size_t>(i)] = static_cast<int>(value % 10);
  return digits;
}

uint64_t Magnitude(int64_t value) {
  return value < 0 ? static_cast<uint64_t>(-(value + 1)) + 1 : static_cast<uint64_t>(value);
}

// Numerals read beside the remainder mod k; each method's expression ends
// in remainder 0. Rules are made on first use and shared.
class RemainderAutomaton {
 public:
  RemainderAutomaton(uint64_t divisor, GrammarBuilder* builder,
                     const std::function<std::string(const std::string&)>& new_rule_name)
      : divisor_(divisor), builder_(builder), new_rule_name_(new_rule_name) {}

  // Canonical numerals (no leading zero) of the magnitudes in [lo, hi],
  // lo >= 1; not `bounded`: no hi.
  ExprPtr Magnitudes(uint64_t lo, bool bounded, uint64_t hi) {
    if (bounded && lo > hi) return Never();
    std::vector<ExprPtr> choices;
    const int lo_width = DecimalWidth(lo);
    const int hi_width = bounded ? DecimalWidth(hi) : lo_width;
    for (int width = lo_width; width <= hi_width; ++width) {
      const uint64_t first = std::max(lo, PowerOfTen(width - 1));
      const uint64_t last = std::min(bounded ? hi : UINT64_MAX, width == 20 ? UINT64_MAX : PowerOfTen(width) - 1);
      if (first <= last) choices.push_back(Span(DigitsOf(first, width), DigitsOf(last, width), 0, true, true, 0));
    }
    if (!bounded) {  // every longer numeral
      choices.push_back(DigitsThen(1, 9, 0, [this, lo_width](uint64_t r) { return AtLeast(lo_width, r); }));
    }
    return ChoiceOf(std::move(choices));
  }

 private:
  uint64_t Next(uint64_t r, int digit) const {
    return static_cast<uint64_t>((static_cast<Wide>(r) * 10 + digit) % divisor_);
  }

  // One digit of [first, last], then `rest(remainder after it)`; digits
  // that lead to the same remainder share one alternative.
  template <typename Rest>
  ExprPtr DigitsThen(int first, int last, uint64_t r, Rest rest) {
    std::map<uint64_t, ByteSet> by_next;
    for (int d = first; d <= last; ++d) by_next[Next(r, d)].Add(static_cast<uint8_t>('0' + d));
    std::vector<ExprPtr> choices;
    for (const auto& [next, digits] : by_next) choices.push_back(SequenceOf({Bytes(digits), rest(next)}));
    return ChoiceOf(std::move(choices));
  }

  // Each hint is distinct (the rule's digits and remainder), so that
  // finding a free name stays one lookup.
  ExprPtr Define(const std::string& hint, ExprPtr body) {
    if (IsNever(body)) return body;
    const std::string name = new_rule_name_(hint);
    builder_->Define(name, std::move(body));
    return RuleRef(name);
  }

  // Exactly n more digits, from remainder r.
  ExprPtr Free(int n, uint64_t r) {
    if (n == 0) return r == 0 ? Empty() : Never();
    const auto key = std::make_pair(n, r);
    if (const auto it = free_.find(key); it != free_.end()) return it->second;
    ExprPtr body = DigitsThen(0, 9, r, [this, n](uint64_t next) { return Free(n - 1, next); });
    return free_[key] = Define("multiple.free" + std::to_string(n) + "." + std::to_string(r), std::move(body));
  }

  // At least n more digits, from remainder r.
  ExprPtr AtLeast(int n, uint64_t r) {
    if (n == 0) return AnyDigits(r);
    const auto key = std::make_pair(n, r);
    if (const auto it = at_least_.find(key); it != at_least_.end()) return it->second;
    ExprPtr body = DigitsThen(0, 9, r, [this, n](uint64_t next) { return AtLeast(n - 1, next); });
    return at_least_[key] = Define("multiple.tail" + std::to_string(n) + "." + std::to_string(r), std::move(body));
  }

  // Any number of digits, from remainder r: k rules referring to each
  // other, none empty (some digits always lead back to 0).
  ExprPtr AnyDigits(uint64_t r) {
    if (any_.empty()) {
      for (uint64_t s = 0; s < divisor_; ++s) any_.push_back(new_rule_name_("multiple.any" + std::to_string(s)));
      for (uint64_t s = 0; s < divisor_; ++s) {
        ExprPtr more = DigitsThen(0, 9, s, [this](uint64_t next) { return RuleRef(any_[next]); });
        builder_->Define(any_[s], s == 0 ? Choice({Empty(), more}) : more);
      }
    }
    return RuleRef(any_[r]);
  }

  // Digits i.. of the numerals of one width between lo and hi (as in
  // numeral_ranges.cc), where the digits so far left remainder r.
  ExprPtr Span(const std::vector<int>& lo, const std::vector<int>& hi, size_t i, bool lo_tight, bool hi_tight,
               uint64_t r) {
    if (i == lo.size()) return r == 0 ? Empty() : Never();
    if (lo_tight && std::all_of(lo.begin() + static_cast<long>(i), lo.end(), [](int d) { return d == 0; })) {
      lo_tight = false;
    }
    if (hi_tight && std::all_of(hi.begin() + static_cast<long>(i), hi.end(), [](int d) { return d == 9; })) {
      hi_tight = false;
    }
    const int rest = static_cast<int>(lo.size() - i) - 1;
    if (!lo_tight && !hi_tight) return Free(rest + 1, r);
    const int first = lo_tight ? lo[i] : 0;
    const int last = hi_tight ? hi[i] : 9;
    if (first == last) return SequenceOf({Digit(first), Span(lo, hi, i + 1, lo_tight, hi_tight, Next(r, first))});
    std::vector<ExprPtr> choices;
    if (lo_tight) choices.push_back(SequenceOf({Digit(first), Span(lo, hi, i + 1, true, false, Next(r, first))}));
    const int middle_first = lo_tight ? first + 1 : first;
    const int middle_last = hi_tight ? last - 1 : last;
    if (middle_first <= middle_last) {
      choices.push_back(
          DigitsThen(middle_first, middle_last, r, [this, rest](uint64_t next) { return Free(rest, next); }));
    }
    if (hi_tight) choices.push_back(SequenceOf({Digit(last), Span(lo, hi, i + 1, false, true, Next(r, last))}));
    return ChoiceOf(std::move(choices));
  }

  uint64_t divisor_;
  GrammarBuilder* builder_;
  const std::function<std::string(const std::string&)>& new_rule_name_;
  std::map<std::pair<int, uint64_t>, ExprPtr> free_;
  std::map<std::pair<int, uint64_t>, ExprPtr> at_least_;
  std::vector<std::string> any_;
};

// The multiples of k in [lo, hi], listed.
ExprPtr Listed(uint64_t divisor, int64_t lo, int64_t hi) {
  const Wide k = divisor;
  Wide first = lo / k * k;
  if (first < lo) first += k;
  std::vector<ExprPtr> choices;
  for (Wide v = first; v <= hi; v += k) {
    const auto value = static_cast<int64_t>(v);
    choices.push_back(Literal(std::to_string(value)));
    if (value == 0) choices.push_back(Literal("-0"));
  }
  return ChoiceOf(std::move(choices));
}

// How many multiples of k lie in [lo, hi].
Wide CountMultiples(uint64_t divisor, int64_t lo, int64_t hi) {
  if (lo > hi) return 0;
  const Wide k = divisor;
  const auto floor_div = [k](Wide v) { return v >= 0 ? v / k : -((-v + k - 1) / k); };
  return floor_div(hi) - floor_div(static_cast<Wide>(lo) - 1);
}

}  // namespace

StatusOr<ExprPtr> IntegerMultiples(uint64_t divisor, std::optional<int64_t> lo, std::optional<int64_t> hi,
                                   GrammarBuilder* builder,
                                   const std::function<std::string(const std::string&)>& new_rule_name,
                                   const IntegerMultiplesLimits& limits) {
  if (lo && hi && CountMultiples(divisor, *lo, *hi) <= static_cast<Wide>(limits.max_listed)) {
    return Listed(divisor, *lo, *hi);
  }
  if (divisor > limits.max_divisor) {
    return InvalidArgumentError("multipleOf " + std::to_string(divisor) + " is supported only up to " +
                                std::to_string(limits.max_divisor) +
                                " (the grammar reads the remainder digit by "
                                "digit, one state per value), or over a range with at most " +
                                std::to_string(limits.max_listed) + " multiples");
  }
  RemainderAutomaton automaton(divisor, builder, new_rule_name);
  std::vector<ExprPtr> choices;
  if (!lo || *lo < 0) {  // negative values: "-" and a magnitude
    const uint64_t least = hi && *hi < 0 ? Magnitude(*hi) : 1;
    choices.push_back(SequenceOf({Literal("-"), automaton.Magnitudes(least, lo.has_value(), lo ? Magnitude(*lo) : 0)}));
  }
  if ((!lo || *lo <= 0) && (!hi || *hi >= 0)) {
    choices.push_back(Literal("0"));
    choices.push_back(Literal("-0"));
  }
  if (!hi || *hi > 0) {
    const uint64_t least = lo && *lo > 1 ? static_cast<uint64_t>(*lo) : 1;
    choices.push_back(automaton.Magnitudes(least, hi.has_value(), hi ? static_cast<uint64_t>(*hi) : 0));
  }
  return ChoiceOf(std::move(choices));
}

}  // namespace pagoda::structured
