// The bytes of responses: status line and headers, chunk framing.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "pagoda/server/http/response.h"

namespace pagoda::http::internal {

// How the body after a response head is delimited.
enum class Framing {
  kContentLength,  // Content-Length: n
  kChunked,        // Transfer-Encoding: chunked
  kUntilClose,     // HTTP/1.0 streams: the body ends when the connection does
  kNoBody,         // 1xx, 204, 304
};

struct ResponseHead {
  int status = 200;
  std::string_view content_type;  // empty: no Content-Type
  const Headers* headers = nullptr;
  Framing framing = Framing::kContentLength;
  size_t content_length = 0;
  std::string_view connection;  // the Connection header's value; empty: none
};

std::string FormatHead(const ResponseHead& head);

// Whether a response of this status may carry a body at all.
bool StatusAllowsBody(int status);

// One chunk of a chunked body; `data` must not be empty.
std::string Chunk(std::string_view data);
inline constexpr std::string_view kLastChunk = "0\r\n\r\n";
inline constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";

}  // namespace pagoda::http::internal
