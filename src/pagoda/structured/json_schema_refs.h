// Where things are in a JSON Schema document: JSON pointers (RFC 6901) for
// messages, and the targets of local "$ref"s.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "pagoda/base/status.h"

namespace pagoda::structured {

using Json = nlohmann::ordered_json;

// A value of the schema document and its JSON pointer ("" is the root).
struct Located {
  const Json* value = nullptr;
  std::string pointer;

  // The member `key` of this object value (which must have it).
  Located Member(const std::string& key) const;
  // Its member `key` whose value is `member` (met while iterating: no lookup).
  Located Child(const std::string& key, const Json& member) const;
  // Element `index` of this array value.
  Located Element(size_t index) const;
};

// `pointer` as messages show it: a URI fragment, "#" for the root.
std::string Where(const std::string& pointer);

// `token` escaped for a JSON pointer (~ as ~0, / as ~1).
std::string PointerToken(std::string_view token);

// The schema that `ref` (the value of a "$ref" keyword) names in `root`:
// "#" or "#" followed by a JSON pointer, percent-encoded or not (so
// "#/$defs/x" and "#/definitions/x"). Remote references, anchors ("#name")
// and pointers that lead nowhere are INVALID_ARGUMENT naming the "$ref".
StatusOr<Located> ResolveRef(const Json& root, const Located& ref);

}  // namespace pagoda::structured
