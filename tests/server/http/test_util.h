// Helpers for the HTTP server tests: a blocking client on a raw socket (so
// every read has a timeout and a test can send half requests or garbage),
// a server on a free port, and a place where handlers leave their Responders
// for the test thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pagoda/server/http/http_server.h"

namespace pagoda::http::testing {

// Generous: the tests run on a loaded two-core machine.
inline constexpr std::chrono::seconds kTimeout{10};

struct ClientResponse {
  int status = 0;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  // The header's value, or "" if absent; the name is case-insensitive.
  std::string header(std::string_view name) const;
};

class TestClient {
 public:
  explicit TestClient(uint16_t port);  // connects to 127.0.0.1
  ~TestClient();
  TestClient(const TestClient&) = delete;
  TestClient& operator=(const TestClient&) = delete;

  bool connected() const { return fd_ >= 0; }
  uint16_t local_port() const;
  // Sends all of `bytes`; false if the connection failed.
  bool Send(std::string_view bytes);
  // The next response; nullopt on a parse error, EOF or kTimeout. Bytes
  // after it stay for the next call.
  std::optional<ClientResponse> ReadResponse(bool head_request = false);
  // Reads until `needle` is among the bytes not yet taken by ReadResponse.
  bool WaitFor(std::string_view needle);
  // True if the server closes the connection (EOF or reset) within kTimeout;
  // what arrives until then is added to received().
  bool WaitForClose();
  // Closes the socket with a reset, as a client that goes away does.
  void Abort();
  // Half-closes: the server reads EOF, but the client still reads.
  void FinishSending();
  // The next final (non-1xx) response, skipping interim ones.
  std::optional<ClientResponse> ReadFinalResponse();
  const std::string& received() const { return buffer_; }

 private:
  // One recv, waiting up to `timeout`: bytes read, 0 on EOF, -1 on error
  // or timeout.
  long ReadMore(std::chrono::milliseconds timeout);

  int fd_ = -1;
  std::string buffer_;  // received and not yet taken by ReadResponse
};

// "METHOD target HTTP/1.1" with Host, the extra header lines (each ending in
// \r\n), and Content-Length when there is a body.
std::string MakeRequest(std::string_view method, std::string_view target, std::string_view body = "",
                        std::string_view extra_headers = "");

// A server on 127.0.0.1 and a free port; config.port is ignored. Its errors
// come from a make_error that writes "error <status>: <message>".
std::unique_ptr<Server> StartTestServer(Handler handler, ServerConfig config = {});

// Answers 200 with "<method> <target> path=<path> x-test=<header> body=<body>".
void EchoHandler(Request request, std::shared_ptr<Responder> responder);

// Polls `done` until it holds or `timeout` passes; returns its last value.
bool WaitUntil(const std::function<bool()>& done, std::chrono::milliseconds timeout = kTimeout);

// Where handlers leave their Responders (and requests) for the test thread.
class ResponderBox {
 public:
  void Put(Request request, std::shared_ptr<Responder> responder);
  // Waits until `n` have arrived; false after `timeout`.
  bool WaitForCount(size_t n, std::chrono::milliseconds timeout = kTimeout);
  std::vector<std::shared_ptr<Responder>> responders() const;
  std::shared_ptr<Responder> at(size_t i) const;

 private:
  mutable std::mutex mu_;
  std::condition_variable arrived_;
  std::vector<std::pair<Request, std::shared_ptr<Responder>>> entries_;
};

// A handler that leaves each request and its Responder in `box`.
Handler KeepResponders(ResponderBox& box);

}  // namespace pagoda::http::testing
