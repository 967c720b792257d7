// Request bodies parsed in time linear in their size, with bounded nesting
// and keys per object.
//
// Chat templates show objects' keys in the order the client sent them (as
// Python keeps them), so bodies are read as nlohmann::ordered_json. Its own
// parser inserts each key with a linear search for duplicates, which makes
// an object of N keys cost O(N^2): 200,000 keys took 32 s. This parser
// builds the same value with a hash index per open object instead.
#pragma once

#include <cstddef>
#include <string_view>

#include <nlohmann/json.hpp>

#include "pagoda/base/status.h"

namespace pagoda::server {

struct JsonLimits {
  // Deeper than any real request (tool schemas nest a few levels); the cap
  // bounds the parser's stack and every later walk over the value.
  int max_depth = 128;
  // Room for a logit_bias over a whole 64k vocabulary.
  size_t max_object_keys = 65536;
};

// The value of `text`, or INVALID_ARGUMENT saying why it is not valid JSON
// or which limit it passes. A key given twice keeps its first position and
// its last value, as nlohmann's parser does.
StatusOr<nlohmann::ordered_json> ParseBoundedJson(std::string_view text, const JsonLimits& limits = {});

}  // namespace pagoda::server
