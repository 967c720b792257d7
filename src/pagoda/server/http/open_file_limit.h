// Each connection holds a descriptor, and the default soft limit (often
// 1024) is below what hundreds of streaming clients need.
#pragma once

namespace pagoda::http::internal {

// Raises the soft RLIMIT_NOFILE to min(hard limit, 65536) if it is lower,
// as vLLM does at startup; warns if what it gets is still small.
void RaiseOpenFileLimit();

}  // namespace pagoda::http::internal
