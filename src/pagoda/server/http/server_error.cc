#include "pagoda/server/http/server_error.h"

#include <exception>

#include <spdlog/spdlog.h>

namespace pagoda::http::internal {

Response ServerErrorResponse(const ServerConfig& config, int status, std::string message) {
  if (config.make_error) {
    try {
      Response response = config.make_error(status, message);
      response.status = status;
      return response;
    } catch (const std::exception& e) {
      spdlog::error("http: make_error({}) threw: {}", status, e.what());
    }
  }
  Response response;
  response.status = status;
  response.content_type = "text/plain; charset=utf-8";
  response.body = std::move(message) + "\n";
  return response;
}

}  // namespace pagoda::http::internal
