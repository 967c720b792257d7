// Parsing of KV cache settings given on the command line.
#pragma once

#include <string>

#include "pagoda/base/status.h"
#include "pagoda/tensor/dtype.h"

namespace pagoda::apps {

// "f16" (default) or "f32".
StatusOr<DType> ParseKvCacheDtype(const std::string& name);

}  // namespace pagoda::apps
