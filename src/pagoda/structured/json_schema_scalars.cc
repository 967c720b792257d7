// Strings (length, format, pattern), numbers (integer ranges), and the
// literal spelling of enum and const values.
#include <algorithm>
#include <climits>
#include <cmath>
#include <optional>
#include <utility>

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
  std::optional<int64_t> lo, hi;
  for (const Bounds& bounds : all) {
    for (const Located& bound : *bounds.list) {
      const std::string keyword = bound.pointer.substr(bound.pointer.rfind('/') + 1);
      if (node.types & kFractionType) {
        return Refuse(bound.pointer, keyword + " on numbers that may have a fraction is not supported (only integer "
                                               "ranges are exact; use \"type\": \"integer\")");
      }
      const std::optional<int64_t> value = IntegerBound(*bound.value, bounds.lower, bounds.exclusive);
      if (!value) return Refuse(bound.pointer, keyword + " outside the 64-bit integer range is not supported");
      if (bounds.lower) lo = std::max(lo.value_or(INT64_MIN), *value);
      if (!bounds.lower) hi = std::min(hi.value_or(INT64_MAX), *value);
    }
  }
  if (node.types & kFractionType) return json_.Number();
  if (!lo && !hi) return json_.Integer();
  if (lo && hi && *lo > *hi) return Never();
  return IntegerRange(lo, hi);
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
