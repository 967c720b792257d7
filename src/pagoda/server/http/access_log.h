// The access log: one line per answered request, as uvicorn (and so vLLM)
// writes it, plus the body size and the time from its first byte.
#pragma once

#include <chrono>
#include <cstdint>
#include <string_view>

namespace pagoda::http::internal {

struct AccessRecord {
  std::string_view remote;        // "ip:port"
  std::string_view request_line;  // "POST /v1/completions HTTP/1.1", or "-" if unparsed
  int status = 0;                 // 0: no response was sent
  uint64_t body_bytes = 0;
  std::chrono::steady_clock::duration elapsed{};
  std::string_view note;          // "stream", "client disconnected", ...; may be empty
};

void LogAccess(const AccessRecord& record);

}  // namespace pagoda::http::internal
