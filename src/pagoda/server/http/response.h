// What a handler sends back, and the Responder it sends it through.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "pagoda/server/http/request.h"

namespace pagoda::http {

using Headers = std::vector<std::pair<std::string, std::string>>;

struct Response {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  // Extra headers. The server owns the framing: Content-Length,
  // Transfer-Encoding and Connection given here are dropped.
  Headers headers;
};

// One per request. Every method is thread-safe: it may be called from any
// thread (the engine's, say) and posts to the connection's strand, so calls
// take effect in the order they were made. Calls after the response
// completed or the client went away, or after the Server was destroyed, do
// nothing.
class Responder {
 public:
  virtual ~Responder() = default;

  // A whole response, once.
  virtual void Send(Response response) = 0;
  // Starts a streamed response (chunked; HTTP/1.0 clients get the body until
  // the connection closes) and flushes its headers right away. `keepalive`:
  // bytes the body may carry anywhere between writes without meaning
  // anything (an SSE comment), which the server sends to a client that has
  // half-closed to learn whether it still reads; empty: none.
  virtual void StartStream(int status, std::string content_type, Headers headers = {},
                           std::string keepalive = {}) = 0;
  // One chunk, after StartStream, sent as soon as possible. Empty data is
  // ignored (an empty chunk would end the stream).
  virtual void Write(std::string data) = 0;
  // Ends the stream; the connection may then serve its next request.
  virtual void End() = 0;

  // Runs once, on some thread, if the client goes away (disconnect, write
  // error or stall, too much unsent data, server shutdown) before the
  // response completed; runs immediately, on the caller's thread, if the
  // client is already gone.
  virtual void OnClientGone(std::function<void()> callback) = 0;
  virtual bool client_gone() const = 0;
};

// Runs on an io thread and must not block; it may keep the Responder and
// complete the response later from another thread. With several io threads
// it is called concurrently. An exception it throws becomes a 500.
using Handler = std::function<void(Request request, std::shared_ptr<Responder> responder)>;

}  // namespace pagoda::http
