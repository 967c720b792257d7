// Python's json.dumps, which transformers' tojson filter calls: its
// separators, float repr and escaping differ from nlohmann's dump(), and
// tool schemas printed into prompts must match byte for byte.
#pragma once

#include <optional>
#include <string>

#include "pagoda/chat_template/bounded_string.h"
#include "pagoda/chat_template/value.h"

namespace pagoda::chat_template {

struct JsonDumpOptions {
  bool ensure_ascii = false;
  // One line when unset; otherwise each item on its own line, indented by
  // this string per level.
  std::optional<std::string> indent;
  std::string item_separator = ", ";  // json.dumps uses "," when indenting
  std::string key_separator = ": ";
  bool sort_keys = false;
};

// Throws for values JSON cannot hold (undefined, namespaces, callables), as
// json.dumps raises TypeError for them.
void AppendJson(const Value& value, const JsonDumpOptions& options, BoundedString* out);

}  // namespace pagoda::chat_template
