// Arrays: prefixItems position by position, then items, with the length
// between minItems and maxItems.
#include <algorithm>
#include <cstdint>
#include <utility>

#include "pagoda/structured/json_schema_converter.h"

namespace pagoda::structured {

StatusOr<ExprPtr> JsonSchemaConverter::ConvertArray(const SchemaNode& node, int depth, const std::string& hint) {
  return Guarded([&]() -> StatusOr<ExprPtr> {
    uint64_t max = node.max_items.value_or(UINT64_MAX);
    std::vector<ExprPtr> prefix;  // elements: value ws
    bool prefix_cut = false;      // a position of prefixItems can hold nothing, or is past maxItems
    for (size_t i = 0; i < node.prefix_items.size() && !prefix_cut; ++i) {
      if (i >= max) {
        prefix_cut = true;
        break;
      }
      PAGODA_ASSIGN_OR_RETURN(const ExprPtr value, Convert(node.prefix_items[i], depth, hint + "." + std::to_string(i)));
      if (IsNever(value)) {
        prefix_cut = true;
        break;
      }
      prefix.push_back(json_.Element(value));
    }
    ExprPtr items = options_.strict ? Never() : json_.AnyValue();
    if (node.items) {
      PAGODA_ASSIGN_OR_RETURN(items, Convert(*node.items, depth, hint + ".items"));
    }
    const uint64_t k = prefix.size();
    if (prefix_cut || IsNever(items)) max = std::min(max, k);
    const uint64_t min = node.min_items;
    if (min > max) return Never();

    // Past the prefix: between tail_min and tail_max more elements.
    const uint64_t tail_min = min > k ? min - k : 0;
    const uint64_t tail_max = max == UINT64_MAX ? UINT64_MAX : max - k;
    const uint64_t limit = std::min<uint64_t>(options_.limits.max_symbols, INT32_MAX);
    if (tail_min > limit || (tail_max != UINT64_MAX && tail_max > limit)) {
      return Refuse(node.pointer, "minItems or maxItems too large for the grammar limits");
    }
    const auto count = [](uint64_t n) { return n == UINT64_MAX ? Expr::kUnbounded : static_cast<int>(n); };
    ExprPtr body;
    if (tail_max == 0) {
      body = Empty();
    } else {
      const ExprPtr element = Named(hint + ".item", json_.Element(items));
      const ExprPtr next = Sequence({json_.Comma(), element});
      if (k > 0) {
        body = Repeat(next, count(tail_min), count(tail_max));
      } else {
        const uint64_t more_max = tail_max == UINT64_MAX ? UINT64_MAX : tail_max - 1;
        body = Sequence({element, Repeat(next, count(tail_min > 0 ? tail_min - 1 : 0), count(more_max))});
        if (tail_min == 0) body = Optional(body);
      }
    }
    // The prefix from its last element back: the array may stop before
    // element j when j >= minItems.
    for (size_t j = prefix.size(); j-- > 0;) {
      body = j > 0 ? Sequence({json_.Comma(), prefix[j], body}) : Sequence({prefix[j], body});
      if (j >= min) body = Optional(body);
    }
    return Sequence({json_.ArrayOpen(), body, Literal("]")});
  });
}

}  // namespace pagoda::structured
