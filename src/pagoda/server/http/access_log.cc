#include "pagoda/server/http/access_log.h"

#include <spdlog/spdlog.h>

namespace pagoda::http::internal {

void LogAccess(const AccessRecord& r) {
  const double ms = std::chrono::duration<double, std::milli>(r.elapsed).count();
  const std::string status = r.status == 0 ? "-" : std::to_string(r.status);
  if (r.note.empty()) {
    spdlog::info("{} - \"{}\" {} {}B {:.1f}ms", r.remote, r.request_line, status, r.body_bytes, ms);
  } else {
    spdlog::info("{} - \"{}\" {} {}B {:.1f}ms ({})", r.remote, r.request_line, status, r.body_bytes, ms, r.note);
  }
}

}  // namespace pagoda::http::internal
