// The asynchronous HTTP/1.1 server under `pagoda serve`: a few io threads
// (Boost.Asio), one strand per connection, keep-alive, streamed responses.
// It knows nothing of what it serves; the handler does.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "pagoda/base/status.h"
#include "pagoda/server/http/request.h"
#include "pagoda/server/http/response.h"

namespace pagoda::http {

struct ServerConfig {
  std::string host = "127.0.0.1";
  uint16_t port = 8000;  // 0 picks a free port
  // Two, so that one busy io thread never holds up every connection.
  int io_threads = 2;
  size_t max_body_bytes = size_t{32} << 20;    // larger bodies get 413
  size_t max_header_bytes = size_t{16} << 10;  // larger request heads get 431
  // A request's head and body must arrive within this of its first byte,
  // else 408 and the connection closes.
  std::chrono::seconds read_timeout{30};
  // A keep-alive connection with no request for this long is closed quietly
  // (uvicorn's default, which vLLM keeps).
  std::chrono::seconds idle_timeout{5};
  // A write that makes no progress for this long means the client is gone.
  std::chrono::seconds write_timeout{60};
  // A streamed response with more unsent bytes than this means the client
  // is not reading: it is treated as gone.
  size_t max_pending_write_bytes = size_t{8} << 20;
  // One info line per exchange, as uvicorn's access log (which vLLM's
  // --uvicorn-log-level above info turns off).
  bool access_log = true;
  // Makes the responses to errors the server finds itself (400 malformed
  // request, 408, 413, 431, 500 from a throwing handler, 503 while shutting
  // down). Unset: plain text.
  std::function<Response(int status, std::string message)> make_error;
};

class Server {
 public:
  // Binds (an error names the address if it is taken) and starts the io
  // threads. Raises the soft open-file limit if it is low.
  static StatusOr<std::unique_ptr<Server>> Start(ServerConfig config, Handler handler);
  ~Server();  // Stop(0) unless stopped
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  uint16_t port() const;

  // Stops accepting and closes idle connections, lets in-flight responses
  // finish for up to `grace`, then closes the rest (their OnClientGone
  // callbacks run before Stop returns) and joins the io threads.
  // Idempotent; must not be called from a handler.
  void Stop(std::chrono::milliseconds grace);

 private:
  struct Impl;
  explicit Server(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace pagoda::http
