// A schema's keywords, read and checked, as the converter consumes them.
// A node may hold several schemas at once (allOf, a $ref beside other
// keywords, anyOf's siblings with each branch): their intersection, merged
// keyword by keyword where that is exact (types intersect, bounds tighten,
// subschemas of the same place collect into a list that must all hold) and
// refused where it is not (two anyOf, two formats).
//
// OpenAPI 3.0's "nullable": true (which vLLM and OpenAI clients send) adds
// null to the "type" beside it, as OpenAPI 3.0.3 defines it; without a
// "type" in the same schema object it would have no effect, so it is refused
// there rather than ignored.
//
// Every keyword outside the supported set is INVALID_ARGUMENT naming it and
// its JSON pointer; annotations are skipped: title, description, examples,
// default, $comment, deprecated, readOnly, writeOnly, $schema, and $id at
// the root ($id deeper would change what "$ref"s under it mean).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "pagoda/base/status.h"
#include "pagoda/structured/json_schema_refs.h"

namespace pagoda::structured {

// Instance types, as bits; "number" is integers and fractions.
enum TypeBit : uint8_t {
  kNullType = 1,
  kBooleanType = 2,
  kIntegerType = 4,
  kFractionType = 8,  // numbers that are not integers
  kStringType = 16,
  kArrayType = 32,
  kObjectType = 64,
  kAllTypes = 127,
};

// One schema made of fragments that must all hold; empty: any value.
using Fragments = std::vector<Located>;

struct SchemaNode {
  std::string pointer;  // the first fragment's, for messages
  uint8_t types = kAllTypes;
  // The type names object (array), or object (array) keywords appear: the
  // node is an object (array) schema, to which strict mode applies.
  bool object_shaped = false;
  bool array_shaped = false;
  // Each validation keyword met, with the pointer of its first occurrence.
  std::map<std::string, std::string> keywords;

  std::vector<std::pair<std::string, Fragments>> properties;  // schema order
  std::unordered_map<std::string, size_t> property_index;      // name -> position in `properties`
  std::vector<std::string> required;                           // in order, once each
  std::unordered_set<std::string> required_set;
  std::optional<Fragments> additional_properties;

  std::vector<Fragments> prefix_items;
  std::optional<Fragments> items;
  uint64_t min_items = 0;
  std::optional<uint64_t> max_items;

  uint64_t min_length = 0;
  std::optional<uint64_t> max_length;
  std::optional<Located> format;
  std::optional<Located> pattern;

  std::vector<Located> minimum, maximum, exclusive_minimum, exclusive_maximum;
  std::vector<Located> multiple_of;  // each a positive number; all must hold

  std::optional<std::vector<Located>> values;  // enum and const
  std::optional<Located> choice;               // the anyOf or oneOf array

  // What objectness the fragments declared (for merging additionalProperties).
  struct ObjectFragment {
    std::unordered_set<std::string> declared;
    std::optional<Located> additional;
  };
  std::vector<ObjectFragment> object_fragments;
};

// `schema` is {"$ref": ...} beside annotations only.
bool IsPureRef(const Json& schema);

// JSON equality as JSON Schema has it: numbers by value (1 == 1.0), true
// is not 1, objects whatever their key order.
bool JsonEqual(const Json& a, const Json& b);

// The type bit of `value` (integral floats are integers, as in jsonschema).
uint8_t TypeOf(const Json& value);

class SchemaReader {
 public:
  SchemaReader(const Json& root, int max_depth) : root_(root), max_depth_(max_depth) {}

  // Intersects `node` with `schema`; `depth` counts the schemas above.
  Status Read(const Located& schema, int depth, SchemaNode* node) const;
  // Completes a node once every fragment is read: each property named by
  // some fragments but not by one with additionalProperties also takes that
  // additionalProperties schema.
  static void Finish(SchemaNode* node);

  const Json& root() const { return root_; }
  int max_depth() const { return max_depth_; }

 private:
  const Json& root_;
  int max_depth_;
};

}  // namespace pagoda::structured
