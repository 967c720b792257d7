#include "pagoda/server/http/open_file_limit.h"

#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <spdlog/spdlog.h>

namespace pagoda::http::internal {

void RaiseOpenFileLimit() {
  constexpr rlim_t kWanted = 65536;
  constexpr rlim_t kSmall = 4096;  // below this a few hundred clients can run out
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur >= kWanted) return;
  const rlim_t old_soft = limit.rlim_cur;
  limit.rlim_cur = std::min(limit.rlim_max, kWanted);
  if (limit.rlim_cur > old_soft) {
    if (setrlimit(RLIMIT_NOFILE, &limit) != 0) {
      spdlog::warn("http: cannot raise the open-file limit from {}: {}", old_soft, std::strerror(errno));
      limit.rlim_cur = old_soft;
    } else {
      spdlog::debug("http: raised the open-file limit from {} to {}", old_soft, limit.rlim_cur);
    }
  }
  if (limit.rlim_cur < kSmall) {
    spdlog::warn("http: the open-file limit is {}; it caps concurrent connections (ulimit -n)", limit.rlim_cur);
  }
}

}  // namespace pagoda::http::internal
