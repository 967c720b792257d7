// The model a `bench serve` run names when --model is not given: the first
// id that GET {base_url}/v1/models lists, as vLLM's bench serve takes it.
#pragma once

#include <string>

#include "pagoda/base/status.h"

namespace pagoda::apps::bench_serve {

StatusOr<std::string> FirstServedModel(const std::string& base_url, const std::string& api_key);

}  // namespace pagoda::apps::bench_serve
