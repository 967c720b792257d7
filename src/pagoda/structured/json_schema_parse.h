// The schema's text as an ordered_json (property order is the schema's),
// parsed in time linear in its size: nlohmann's own parser inserts each key
// of an ordered_json object with a linear search for duplicates, so an
// object of N keys costs O(N^2) (16,000 properties took 20 s). Nesting is
// bounded while parsing.
#pragma once

#include <string_view>

#include "pagoda/base/status.h"
#include "pagoda/structured/json_schema_refs.h"

namespace pagoda::structured {

// INVALID_ARGUMENT if `text` is not JSON or nests deeper than `max_depth`.
// A key given twice keeps its first position and its last value, as
// nlohmann's parser does.
StatusOr<Json> ParseSchemaText(std::string_view text, int max_depth);

}  // namespace pagoda::structured
