#include "pagoda/structured/json_number_bounds.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "pagoda/structured/numeral_ranges.h"

namespace pagoda::structured {
namespace {

// Fraction digits a threshold keeps: bounds finer than this are rounded
// inward, which leaves out only numbers that close to the bound.
constexpr size_t kMaxThresholdFractionDigits = 40;

ExprPtr DigitRange(int first, int last) {
  return Bytes(ByteSet::Range(static_cast<uint8_t>('0' + first), static_cast<uint8_t>('0' + last)));
}

ExprPtr AnyDigit() { return DigitRange(0, 9); }

void Normalize(ExactDecimal* value) {
  while (!value->fraction.empty() && value->fraction.back() == '0') value->fraction.pop_back();
  const size_t nonzero = value->integer.find_first_not_of('0');
  value->integer = nonzero == std::string::npos ? "0" : value->integer.substr(nonzero);
  if (value->integer == "0" && value->fraction.empty()) value->negative = false;
}

// Canonical integer digits plus or minus one (minus: value >= 1).
std::string Increment(std::string digits) {
  for (size_t i = digits.size(); i-- > 0;) {
    if (digits[i] != '9') {
      ++digits[i];
      return digits;
    }
    digits[i] = '0';
  }
  return "1" + digits;
}

std::string Decrement(std::string digits) {
  for (size_t i = digits.size(); i-- > 0;) {
    if (digits[i] != '0') {
      --digits[i];
      break;
    }
    digits[i] = '9';
  }
  const size_t nonzero = digits.find_first_not_of('0');
  return nonzero == std::string::npos ? "0" : digits.substr(nonzero);
}

int CompareIntegers(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
  return a.compare(b) < 0 ? -1 : (a == b ? 0 : 1);
}

// ".F" digits F (at least one) from position i, between the fraction
// digits `lo` and `hi` where `lo_tight` (`hi_tight`) says the digits so far
// equal lo's (hi's) and so that bound still applies.
ExprPtr Fraction(const std::string& lo, const std::string& hi, size_t i, bool lo_tight, bool hi_tight) {
  if (lo_tight && i >= lo.size()) lo_tight = false;
  if (hi_tight && i >= hi.size()) return i == 0 ? Plus(Literal("0")) : Star(Literal("0"));  // past hi: zeros only
  if (!lo_tight && !hi_tight) return i == 0 ? Plus(AnyDigit()) : Star(AnyDigit());
  std::vector<ExprPtr> choices;
  // Ending here is below lo while lo's (nonzero) digits remain.
  if (i > 0 && !lo_tight) choices.push_back(Empty());
  const int first = lo_tight ? lo[i] - '0' : 0;
  const int last = hi_tight ? hi[i] - '0' : 9;
  if (first == last) {
    choices.push_back(Sequence({DigitRange(first, first), Fraction(lo, hi, i + 1, lo_tight, hi_tight)}));
  } else {
    if (lo_tight) choices.push_back(Sequence({DigitRange(first, first), Fraction(lo, hi, i + 1, true, false)}));
    const int middle_first = lo_tight ? first + 1 : first;
    const int middle_last = hi_tight ? last - 1 : last;
    if (middle_first <= middle_last)
      choices.push_back(Sequence({DigitRange(middle_first, middle_last), Star(AnyDigit())}));
    if (hi_tight) choices.push_back(Sequence({DigitRange(last, last), Fraction(lo, hi, i + 1, false, true)}));
  }
  return choices.size() == 1 ? choices[0] : Choice(std::move(choices));
}

// Magnitudes "I.F" in [lo, hi] (both non-negative; no hi: unbounded).
ExprPtr Magnitudes(const ExactDecimal& lo, const std::optional<ExactDecimal>& hi) {
  if (hi && Compare(lo, *hi) > 0) return Choice({});
  const ExprPtr dot = Literal(".");
  if (hi && lo.integer == hi->integer) {
    return Sequence({Literal(lo.integer), dot, Fraction(lo.fraction, hi->fraction, 0, true, true)});
  }
  std::vector<ExprPtr> choices;
  choices.push_back(Sequence({Literal(lo.integer), dot, Fraction(lo.fraction, "", 0, true, false)}));
  const std::string middle_lo = Increment(lo.integer);
  const std::optional<std::string> middle_hi = hi ? std::optional<std::string>(Decrement(hi->integer)) : std::nullopt;
  if (!middle_hi || CompareIntegers(middle_lo, *middle_hi) <= 0) {
    choices.push_back(Sequence({CanonicalNumeralsBetween(middle_lo, middle_hi), dot, Plus(AnyDigit())}));
  }
  if (hi) choices.push_back(Sequence({Literal(hi->integer), dot, Fraction("", hi->fraction, 0, false, true)}));
  return choices.size() == 1 ? choices[0] : Choice(std::move(choices));
}

ExactDecimal Abs(ExactDecimal value) {
  value.negative = false;
  return value;
}

}  // namespace

int Compare(const ExactDecimal& a, const ExactDecimal& b) {
  if (a.negative != b.negative) return a.negative ? -1 : 1;
  int magnitude = CompareIntegers(a.integer, b.integer);
  if (magnitude == 0) magnitude = a.fraction.compare(b.fraction) < 0 ? -1 : (a.fraction == b.fraction ? 0 : 1);
  return a.negative ? -magnitude : magnitude;
}

std::optional<ExactDecimal> ShortestDecimal(double value) {
  if (!std::isfinite(value)) return std::nullopt;
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof(buffer), value, std::chars_format::scientific);
  const std::string text(buffer, result.ptr);  // [-]d[.ddd]e(+|-)xx
  ExactDecimal out;
  out.negative = text[0] == '-';
  const size_t e = text.find('e');
  std::string digits;
  for (size_t i = out.negative ? 1 : 0; i < e; ++i) {
    if (text[i] != '.') digits += text[i];
  }
  // The point goes after `point` digits of `digits`.
  const long point = std::stol(text.substr(e + 1)) + 1;
  if (point <= 0) {  // integer part "0"
    out.fraction.assign(static_cast<size_t>(-point), '0');
    out.fraction += digits;
  } else if (static_cast<size_t>(point) >= digits.size()) {
    out.integer = digits + std::string(static_cast<size_t>(point) - digits.size(), '0');
  } else {
    out.integer = digits.substr(0, static_cast<size_t>(point));
    out.fraction = digits.substr(static_cast<size_t>(point));
  }
  Normalize(&out);
  return out;
}

ExactDecimal RoundFraction(ExactDecimal value, size_t digits, bool up) {
  if (value.fraction.size() <= digits) return value;
  value.fraction.resize(digits);  // the dropped digits are not all zero
  if (up != value.negative) {     // away from zero: one unit in the last place more
    const std::string sum = Increment(value.integer + value.fraction);
    value.integer = sum.substr(0, sum.size() - digits);
    value.fraction = sum.substr(sum.size() - digits);
  }
  Normalize(&value);
  return value;
}

std::optional<ExactDecimal> LowerThreshold(double bound, bool exclusive) {
  const double least = exclusive ? std::nextafter(bound, std::numeric_limits<double>::infinity()) : bound;
  const auto decimal = ShortestDecimal(least);
  if (!decimal) return std::nullopt;
  return RoundFraction(*decimal, kMaxThresholdFractionDigits, true);
}

std::optional<ExactDecimal> UpperThreshold(double bound, bool exclusive) {
  const double most = exclusive ? std::nextafter(bound, -std::numeric_limits<double>::infinity()) : bound;
  const auto decimal = ShortestDecimal(most);
  if (!decimal) return std::nullopt;
  return RoundFraction(*decimal, kMaxThresholdFractionDigits, false);
}

ExprPtr FractionNumeralsBetween(const std::optional<ExactDecimal>& lo, const std::optional<ExactDecimal>& hi) {
  if (lo && hi && Compare(*lo, *hi) > 0) return Choice({});
  const ExactDecimal zero;
  std::vector<ExprPtr> choices;
  if (!hi || !hi->negative) choices.push_back(Magnitudes(lo && !lo->negative ? *lo : zero, hi));
  if (!lo || Compare(*lo, zero) <= 0) {  // "-" and a magnitude; "-0.0" is zero
    const std::optional<ExactDecimal> most = lo ? std::optional<ExactDecimal>(Abs(*lo)) : std::nullopt;
    choices.push_back(Sequence({Literal("-"), Magnitudes(hi && hi->negative ? Abs(*hi) : zero, most)}));
  }
  return choices.size() == 1 ? choices[0] : Choice(std::move(choices));
}

}  // namespace pagoda::structured
