// Strings (length, format, pattern), numbers (ranges, multipleOf), and the
// literal spelling of enum and const values.
#include <algorithm>
#include <climits>
#include <cmath>
#include <numeric>
#include <optional>
#include <utility>

#include "pagoda/structured/json_integer_multiples.h"
#include "pagoda/structured/json_number_bounds.h"
#include "pagoda/structured/json_schema_converter.h"
#include "pagoda/structured/json_schema_pattern.h"
#include "pagoda/structured/json_string_chars.h"
#include "pagoda/structured/json_string_formats.h"
#include "pagoda/structured/numeral_ranges.h"

namespace pagoda::structured {
namespace {

// The integer bound that `keyword` (a number) sets: rounded up for lower
// bounds, down for upper ones, one step in for exclusive ones; nullopt
// outside the 64-bit range.
std::optional<int64_t> IntegerBound(const Json& value, bool lower, bool exclusive) {
  constexpr double kTwo63 = 9223372036854775808.0;
  if (value.is_number_unsigned() && value.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) return std::nullopt;
  if (value.is_number_float()) {
    const double v = value.get<double>();
    const double rounded = lower ? (exclusive ? std::floor(v) + 1 : std::ceil(v)) : (exclusive ? std::ceil(v) - 1 : std::floor(v));
    if (!(rounded >= -kTwo63 && rounded < kTwo63)) return std::nullopt;
    return static_cast<int64_t>(rounded);
  }
  const int64_t v = value.get<int64_t>();
  if (!exclusive) return v;
  if (lower) return v == INT64_MAX ? std::nullopt : std::optional<int64_t>(v + 1);
  return v == INT64_MIN ? std::nullopt : std::optional<int64_t>(v - 1);
}

// A JSON integer within +-2^53, or any float: its value is a double's.
bool OneDoubleHolds(const Json& value) {
  constexpr uint64_t kTwo53 = uint64_t{1} << 53;
  if (value.is_number_unsigned()) return value.get<uint64_t>() <= kTwo53;
  if (value.is_number_integer()) {
    const int64_t v = value.get<int64_t>();
    return v >= -static_cast<int64_t>(kTwo53) && v <= static_cast<int64_t>(kTwo53);
  }
  return true;
}

}  // namespace

StatusOr<ExprPtr> JsonSchemaConverter::ConvertString(const SchemaNode& node) {
  const bool has_length = node.min_length > 0 || node.max_length.has_value();
  const auto length_pointer = [&node] {
    const auto it = node.keywords.find(node.min_length > 0 ? "minLength" : "maxLength");
    return it == node.keywords.end() ? node.pointer : it->second;
  };
  ExprPtr contents;
  if (node.pattern) {
    PAGODA_ASSIGN_OR_RETURN(contents, PatternStringContents(node.pattern->value->get<std::string>(), node.pattern->pointer));
  }
  if (node.format) {
    const std::string& format = node.format->value->get_ref<const std::string&>();
    if (node.pattern) return Refuse(node.pattern->pointer, "pattern beside format is not supported");
    if (has_length) return Refuse(length_pointer(), "minLength or maxLength beside format is not supported");
    contents = FormatStringContents(format);
    if (!contents) return Refuse(node.format->pointer, "format '" + format + "' is not supported");
  } else if (has_length) {
    if (node.pattern) return Refuse(length_pointer(), "minLength or maxLength beside pattern is not supported");
    const uint64_t limit = std::min<uint64_t>(options_.limits.max_symbols, INT32_MAX);
    if (node.min_length > limit || node.max_length.value_or(0) > limit) {
      return Refuse(length_pointer(), "minLength or maxLength too large for the grammar limits");
    }
    if (node.max_length && *node.max_length < node.min_length) return Never();
    contents = Repeat(json_.StringChar(), static_cast<int>(node.min_length),
                      node.max_length ? static_cast<int>(*node.max_length) : Expr::kUnbounded);
  } else if (!node.pattern) {
    return json_.String();
  }
  return Sequence({Literal("\""), contents, Literal("\"")});
}

StatusOr<ExprPtr> JsonSchemaConverter::ConvertNumber(const SchemaNode& node) {
  struct Bounds {
    const std::vector<Located>* list;
    bool lower;
    bool exclusive;
  };
  const Bounds all[] = {{&node.minimum, true, false},
                        {&node.exclusive_minimum, true, true},
                        {&node.maximum, false, false},
                        {&node.exclusive_maximum, false, true}};
  const bool fractions = (node.types & kFractionType) != 0;
  PAGODA_ASSIGN_OR_RETURN(const uint64_t divisor, MultipleOf(node));
  // Integers: exact bounds. Fractions (plain decimals): thresholds that
  // every accepted text's double lies within (json_number_bounds.h).
  std::optional<int64_t> lo, hi;
  std::optional<ExactDecimal> fraction_lo, fraction_hi;
  bool bounded = false;
  bool no_fraction = false;  // a bound no finite decimal lies beyond
  bool no_integer = false;   // a bound beyond every 64-bit integer
  for (const Bounds& bounds : all) {
    for (const Located& bound : *bounds.list) {
      bounded = true;
      const std::string keyword = bound.pointer.substr(bound.pointer.rfind('/') + 1);
      std::optional<int64_t> value = IntegerBound(*bound.value, bounds.lower, bounds.exclusive);
      if (!value && !fractions) {
        return Refuse(bound.pointer, keyword + " outside the 64-bit integer range is not supported");
      }
      if (!value) {  // numbers: integers stay within 64 bits, larger values are written as decimals
        const bool above = bound.value->get<double>() > 0;
        if (bounds.lower && above) no_integer = true;
        if (!bounds.lower && !above) no_integer = true;
        value = above ? INT64_MAX : INT64_MIN;
      }
      if (bounds.lower) lo = std::max(lo.value_or(INT64_MIN), *value);
      if (!bounds.lower) hi = std::min(hi.value_or(INT64_MAX), *value);
      if (!fractions || divisor > 1) continue;
      if (!OneDoubleHolds(*bound.value)) {
        return Refuse(bound.pointer, keyword +
                                         " on numbers that may have a fraction is supported within +-2^53 "
                                         "when written as an integer");
      }
      const double b = bound.value->get<double>();
      const auto threshold = bounds.lower ? LowerThreshold(b, bounds.exclusive) : UpperThreshold(b, bounds.exclusive);
      if (!threshold) {
        no_fraction = true;
      } else if (bounds.lower) {
        if (!fraction_lo || Compare(*threshold, *fraction_lo) > 0) fraction_lo = threshold;
      } else if (!fraction_hi || Compare(*threshold, *fraction_hi) < 0) {
        fraction_hi = threshold;
      }
    }
  }
  if (divisor > 1 && no_integer) return Never();
  if (divisor > 1) {  // integers only, for "number" too (every multiple of an integer is one)
    auto multiples =
        IntegerMultiples(divisor, lo, hi, builder_, [this](const std::string& hint) { return NewRuleName(hint); });
    if (!multiples.ok()) return Refuse(node.keywords.at("multipleOf"), std::string(multiples.status().message()));
    return *multiples;
  }
  if (fractions && !bounded) return json_.Number();
  ExprPtr integers =
      !lo && !hi ? json_.Integer() : (no_integer || (lo && hi && *lo > *hi) ? Never() : IntegerRange(lo, hi));
  if (!fractions) return integers;
  return ChoiceOf({integers, no_fraction ? Never() : FractionNumeralsBetween(fraction_lo, fraction_hi)});
}

// The least common multiple of the multipleOf values (1 when none):
// integers only, as no grammar of plain decimals can track a fractional
// step exactly the way a validator's floating-point division does.
StatusOr<uint64_t> JsonSchemaConverter::MultipleOf(const SchemaNode& node) const {
  constexpr uint64_t kMaxDivisor = uint64_t{1} << 62;
  uint64_t divisor = 1;
  for (const Located& keyword : node.multiple_of) {
    const Json& v = *keyword.value;
    const double d = v.get<double>();
    if (v.is_number_float() && std::floor(d) != d) {
      return Refuse(keyword.pointer, "multipleOf that is not an integer is not supported");
    }
    if (v.is_number_float() ? d > static_cast<double>(kMaxDivisor) : v.get<uint64_t>() > kMaxDivisor) {
      return Refuse(keyword.pointer, "multipleOf over 2^62 is not supported");
    }
    const uint64_t k = v.is_number_float() ? static_cast<uint64_t>(d) : v.get<uint64_t>();
    const uint64_t lcm = divisor / std::gcd(divisor, k);
    if (lcm > kMaxDivisor / k)
      return Refuse(keyword.pointer, "multipleOf values whose least common multiple is over 2^62 are not supported");
    divisor = lcm * k;
  }
  return divisor;
}

StatusOr<ExprPtr> JsonSchemaConverter::ValueLiteral(const Json& value, int depth) {
  if (depth > options_.max_depth) return InvalidArgumentError("JSON schema: an enum or const value nests too deep");
  if (value.is_string()) return Literal(CanonicalJsonString(value.get_ref<const std::string&>()));
  if (value.is_array()) {
    std::vector<ExprPtr> elements;
    for (const Json& element : value) {
      PAGODA_ASSIGN_OR_RETURN(ExprPtr literal, ValueLiteral(element, depth + 1));
      elements.push_back(json_.Element(std::move(literal)));
    }
    return Sequence({json_.ArrayOpen(), json_.CommaList(elements), Literal("]")});
  }
  if (value.is_object()) {
    std::vector<ExprPtr> members;
    for (const auto& [key, member] : value.items()) {
      PAGODA_ASSIGN_OR_RETURN(ExprPtr literal, ValueLiteral(member, depth + 1));
      members.push_back(json_.Member(Literal(CanonicalJsonString(key)), std::move(literal)));
    }
    return Sequence({json_.ObjectOpen(), json_.CommaList(members), Literal("}")});
  }
  return Literal(value.dump());  // null, true, false, numbers
}

}  // namespace pagoda::structured
