// One HTTP request as the handler sees it: the whole body already read.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace pagoda::http {

struct Request {
  std::string method;  // "GET", "POST", ...
  std::string target;  // as sent, with the query string
  std::string path;    // target without the query string
  std::string body;
  std::string remote;  // "ip:port" of the client
  int version = 11;    // 10 for HTTP/1.0, 11 for HTTP/1.1
  // In arrival order, names as the client spelled them.
  std::vector<std::pair<std::string, std::string>> headers;

  // The first header of that name, compared case-insensitively.
  std::optional<std::string_view> header(std::string_view name) const;
};

}  // namespace pagoda::http
