#include "pagoda/server/http/wire_format.h"

#include <ctime>

#include <boost/beast/http/status.hpp>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "pagoda/server/http/ascii.h"

namespace pagoda::http::internal {
namespace {

std::string_view ReasonPhrase(int status) {
  namespace beast_http = boost::beast::http;
  const beast_http::status known = beast_http::int_to_status(static_cast<unsigned>(status));
  if (known == beast_http::status::unknown) return "Unknown";
  const auto reason = beast_http::obsolete_reason(known);
  return {reason.data(), reason.size()};
}

// RFC 9110's IMF-fixdate; an origin server with a clock must send Date.
void AppendDate(std::string& out) {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[40];
  const size_t n = std::strftime(text, sizeof(text), "%a, %d %b %Y %H:%M:%S GMT", &utc);
  out.append("Date: ").append(text, n).append("\r\n");
}

bool IsFramingHeader(std::string_view name) {
  return EqualsIgnoreCase(name, "content-length") || EqualsIgnoreCase(name, "transfer-encoding") ||
         EqualsIgnoreCase(name, "connection");
}

// CR, LF or NUL in a header would let a value inject headers or end the head.
bool IsSafeHeaderText(std::string_view text) {
  return text.find_first_of(std::string_view("\r\n\0", 3)) == std::string_view::npos;
}

}  // namespace

std::string FormatHead(const ResponseHead& head) {
  std::string out;
  out.reserve(256);
  out.append(fmt::format("HTTP/1.1 {} {}\r\n", head.status, ReasonPhrase(head.status)));
  AppendDate(out);
  if (!head.content_type.empty() && IsSafeHeaderText(head.content_type)) {
    out.append("Content-Type: ").append(head.content_type).append("\r\n");
  }
  switch (head.framing) {
    case Framing::kContentLength:
      out.append(fmt::format("Content-Length: {}\r\n", head.content_length));
      break;
    case Framing::kChunked:
      out.append("Transfer-Encoding: chunked\r\n");
      break;
    case Framing::kUntilClose:
    case Framing::kNoBody:
      break;
  }
  if (!head.connection.empty()) out.append("Connection: ").append(head.connection).append("\r\n");
  if (head.headers != nullptr) {
    for (const auto& [name, value] : *head.headers) {
      if (name.empty() || IsFramingHeader(name) || !IsSafeHeaderText(name) || !IsSafeHeaderText(value)) {
        spdlog::warn("http: dropped response header '{}'", IsSafeHeaderText(name) ? name : "<unsafe>");
        continue;
      }
      out.append(name).append(": ").append(value).append("\r\n");
    }
  }
  out.append("\r\n");
  return out;
}

bool StatusAllowsBody(int status) { return status >= 200 && status != 204 && status != 304; }

std::string Chunk(std::string_view data) {
  std::string out = fmt::format("{:x}\r\n", data.size());
  out.reserve(out.size() + data.size() + 2);
  out.append(data).append("\r\n");
  return out;
}

}  // namespace pagoda::http::internal
