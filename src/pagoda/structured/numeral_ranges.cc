#include "pagoda/structured/numeral_ranges.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "pagoda/base/check.h"

namespace pagoda::structured {
namespace {

int Base(Radix radix) { return radix == Radix::kDecimal ? 10 : 16; }

// One digit from `first` to `last`.
ExprPtr Digits(int first, int last) {
  ByteSet set;
  for (int d = first; d <= last; ++d) {
    if (d < 10) {
      set.Add(static_cast<uint8_t>('0' + d));
    } else {
      set.Add(static_cast<uint8_t>('a' + d - 10));
      set.Add(static_cast<uint8_t>('A' + d - 10));
    }
  }
  return Bytes(set);
}

ExprPtr AnyDigits(int count, Radix radix) {
  if (count == 0) return Empty();
  return Repeat(Digits(0, Base(radix) - 1), count, count);
}

std::vector<int> DigitsOf(uint64_t value, int width, Radix radix) {
  std::vector<int> digits(static_cast<size_t>(width));
  for (int i = width - 1; i >= 0; --i) {
    digits[static_cast<size_t>(i)] = static_cast<int>(value % static_cast<uint64_t>(Base(radix)));
    value /= static_cast<uint64_t>(Base(radix));
  }
  return digits;
}

// The numerals from digit `i` on, between lo and hi where `lo_tight` (the
// digits so far equal lo's) and `hi_tight` say the bound still applies.
class Span {
 public:
  Span(std::vector<int> lo, std::vector<int> hi, Radix radix) : lo_(std::move(lo)), hi_(std::move(hi)), radix_(radix) {}

  ExprPtr From(size_t i, bool lo_tight, bool hi_tight) const {
    const int n = static_cast<int>(lo_.size());
    const int max = Base(radix_) - 1;
    if (i == lo_.size()) return Empty();
    // A bound whose remaining digits are all 0 (all max) is no bound.
    if (lo_tight && std::all_of(lo_.begin() + static_cast<long>(i), lo_.end(), [](int d) { return d == 0; })) {
      lo_tight = false;
    }
    if (hi_tight && std::all_of(hi_.begin() + static_cast<long>(i), hi_.end(), [max](int d) { return d == max; })) {
      hi_tight = false;
    }
    const int rest = n - static_cast<int>(i) - 1;
    if (!lo_tight && !hi_tight) return AnyDigits(rest + 1, radix_);
    const int first = lo_tight ? lo_[i] : 0;
    const int last = hi_tight ? hi_[i] : max;
    if (first == last) return Sequence({Digits(first, first), From(i + 1, lo_tight, hi_tight)});
    std::vector<ExprPtr> choices;
    const int middle_first = lo_tight ? first + 1 : first;
    const int middle_last = hi_tight ? last - 1 : last;
    if (lo_tight) choices.push_back(Sequence({Digits(first, first), From(i + 1, true, false)}));
    if (middle_first <= middle_last) {
      choices.push_back(Sequence({Digits(middle_first, middle_last), AnyDigits(rest, radix_)}));
    }
    if (hi_tight) choices.push_back(Sequence({Digits(last, last), From(i + 1, false, true)}));
    return choices.size() == 1 ? choices[0] : Choice(std::move(choices));
  }

 private:
  std::vector<int> lo_;
  std::vector<int> hi_;
  Radix radix_;
};

int DecimalWidth(uint64_t value) {
  int width = 1;
  while (value >= 10) {
    value /= 10;
    ++width;
  }
  return width;
}

// 10^n for n <= 19.
uint64_t PowerOfTen(int n) {
  uint64_t value = 1;
  for (int i = 0; i < n; ++i) value *= 10;
  return value;
}

// Canonical numerals (no leading zeros) of the values in [lo, hi], lo >= 1;
// no hi: unbounded.
ExprPtr Magnitudes(uint64_t lo, std::optional<uint64_t> hi) {
  std::vector<ExprPtr> choices;
  const int lo_width = DecimalWidth(lo);
  const int hi_width = hi ? DecimalWidth(*hi) : lo_width;
  for (int width = lo_width; width <= hi_width; ++width) {
    const uint64_t first = std::max(lo, PowerOfTen(width - 1));
    const uint64_t last = width == 20 ? UINT64_MAX : PowerOfTen(width) - 1;
    const uint64_t capped = hi ? std::min(*hi, last) : last;
    if (first <= capped) choices.push_back(FixedWidthNumerals(first, capped, width, Radix::kDecimal));
  }
  if (!hi) {  // every longer numeral
    choices.push_back(Sequence({Digits(1, 9), Repeat(Digits(0, 9), lo_width, Expr::kUnbounded)}));
  }
  return choices.size() == 1 ? choices[0] : Choice(std::move(choices));
}

uint64_t Magnitude(int64_t value) {
  return value < 0 ? static_cast<uint64_t>(-(value + 1)) + 1 : static_cast<uint64_t>(value);
}

}  // namespace

ExprPtr FixedWidthNumerals(uint64_t lo, uint64_t hi, int width, Radix radix) {
  PAGODA_CHECK(lo <= hi && width >= 1);
  return Span(DigitsOf(lo, width, radix), DigitsOf(hi, width, radix), radix).From(0, true, true);
}

ExprPtr CanonicalNumeralsBetween(const std::string& lo, const std::optional<std::string>& hi) {
  const auto digits = [](const std::string& text) {
    std::vector<int> out;
    for (const char c : text) out.push_back(c - '0');
    return out;
  };
  const size_t lo_width = lo.size();
  const size_t hi_width = hi ? hi->size() : lo_width;
  std::vector<ExprPtr> choices;
  for (size_t width = lo_width; width <= hi_width; ++width) {
    // Appended rather than "1" + string, on which GCC 12 warns falsely (-Wrestrict).
    const std::string first = width == lo_width ? lo : std::string(1, '1').append(width - 1, '0');
    const std::string last = hi && width == hi_width ? *hi : std::string(width, '9');
    if (first <= last) {  // one width: text order is value order
      choices.push_back(Span(digits(first), digits(last), Radix::kDecimal).From(0, true, true));
    }
  }
  if (!hi)
    choices.push_back(Sequence({Digits(1, 9), Repeat(Digits(0, 9), static_cast<int>(lo_width), Expr::kUnbounded)}));
  return choices.size() == 1 ? choices[0] : Choice(std::move(choices));
}

ExprPtr IntegerRange(std::optional<int64_t> lo, std::optional<int64_t> hi) {
  std::vector<ExprPtr> choices;
  if (lo && hi && *lo > *hi) return Choice({});
  if (!lo || *lo < 0) {  // negative values: "-" and a magnitude
    const uint64_t least = hi && *hi < 0 ? Magnitude(*hi) : 1;
    const std::optional<uint64_t> most = lo ? std::optional<uint64_t>(Magnitude(*lo)) : std::nullopt;
    choices.push_back(Sequence({Literal("-"), Magnitudes(least, most)}));
  }
  if ((!lo || *lo <= 0) && (!hi || *hi >= 0)) {
    choices.push_back(Literal("0"));
    choices.push_back(Literal("-0"));
  }
  if (!hi || *hi > 0) {
    const uint64_t least = lo && *lo > 1 ? static_cast<uint64_t>(*lo) : 1;
    const std::optional<uint64_t> most = hi ? std::optional<uint64_t>(static_cast<uint64_t>(*hi)) : std::nullopt;
    choices.push_back(Magnitudes(least, most));
  }
  return choices.size() == 1 ? choices[0] : Choice(std::move(choices));
}

}  // namespace pagoda::structured
