// vLLM's --gpu-memory-utilization on the CPU: the share of the machine's
// available memory that the weights and the KV cache may take together, as
// vLLM's CPU backend sizes its cache. The KV cache gets that share less the
// weights' bytes.
#pragma once

#include <cstdint>

#include "pagoda/base/status.h"

namespace pagoda {

// MemAvailable from /proc/meminfo: free memory plus what the kernel can
// reclaim (the page cache that holds a memory-mapped model among it).
StatusOr<int64_t> AvailableMemoryBytes();

// utilization * available - weight_bytes; an error naming the flag when
// utilization is outside (0, 1] or leaves nothing for the cache.
StatusOr<int64_t> KvCacheBytesFromUtilization(double utilization, int64_t available_bytes, int64_t weight_bytes);

}  // namespace pagoda
