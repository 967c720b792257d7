// stream_options: usage in the stream, at its end (include_usage) or in
// every chunk too (continuous_usage_stats, vLLM's extra).
#pragma once

#include <optional>

#include "pagoda/server/field_reader.h"

namespace pagoda::server {

struct StreamOptions {
  bool include_usage = false;
  bool continuous_usage_stats = false;
};

// Only allowed with stream: true, as OpenAI and vLLM check.
std::optional<StreamOptions> ReadStreamOptions(FieldReader& r, bool stream);

}  // namespace pagoda::server
