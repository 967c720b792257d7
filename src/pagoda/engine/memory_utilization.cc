#include "pagoda/engine/memory_utilization.h"

#include <fmt/format.h>

#include <fstream>
#include <sstream>
#include <string>

namespace pagoda {

StatusOr<int64_t> AvailableMemoryBytes() {
  std::ifstream in("/proc/meminfo");
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string key;
    int64_t kib = 0;
    if (fields >> key >> kib && key == "MemAvailable:") return kib * 1024;
  }
  return UnavailableError("cannot read MemAvailable from /proc/meminfo for --gpu-memory-utilization");
}

StatusOr<int64_t> KvCacheBytesFromUtilization(double utilization, int64_t available_bytes, int64_t weight_bytes) {
  if (!(utilization > 0.0 && utilization <= 1.0)) {
    return InvalidArgumentError(fmt::format("--gpu-memory-utilization {} must be in (0, 1]", utilization));
  }
  const auto budget = static_cast<int64_t>(utilization * static_cast<double>(available_bytes));
  if (budget <= weight_bytes) {
    return InvalidArgumentError(fmt::format(
        "--gpu-memory-utilization {}: {:.2f} GiB of the {:.2f} GiB available leaves nothing for the KV cache after "
        "{:.2f} GiB of weights",
        utilization, budget / 1073741824.0, available_bytes / 1073741824.0, weight_bytes / 1073741824.0));
  }
  return budget - weight_bytes;
}

}  // namespace pagoda
