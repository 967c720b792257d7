// libFuzzer target for the HTTP server's request parsing and framing: one
// in-process pagoda::http::Server, and each input sent to it over a fresh
// connection.
//
// Input: a byte whose low two bits give k, then k split bytes, then the
// bytes to send. The bytes go out in k + 1 writes (split byte b cuts at
// b/256 of the way), a little apart so that the server reads them
// separately; then the client half-closes and reads until the server
// closes. What came back must be well-formed HTTP/1.1 responses: first the
// handler's, one per request it was given, in order (a connection that the
// client half-closed may lose or cut its last ones: neither is asserted),
// then at most one error of the server's own (400, 408, 413, 431). No 5xx
// but those the handler was asked for. The server must close within
// kCloseTimeout, and answer a fresh well-formed request afterwards.
//
// The handler answers the status in a path "/status/NNN" (200 otherwise),
// streams three chunks for a path starting "/stream", and numbers its
// responses on each connection in an X-Fuzz-Seq header.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <boost/beast/core/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/status.hpp>
#include <boost/beast/http/string_body.hpp>
#include <spdlog/spdlog.h>

#include "pagoda/server/http/http_server.h"

namespace {

namespace beast_http = boost::beast::http;
using Clock = std::chrono::steady_clock;

constexpr auto kCloseTimeout = std::chrono::seconds(5);
constexpr auto kPauseBetweenWrites = std::chrono::microseconds(500);

[[noreturn]] void Fail(const std::string& what, std::string_view received = {}) {
  std::fprintf(stderr, "http_fuzz: %s\n  received (%zu bytes): %.*s\n", what.c_str(), received.size(),
               static_cast<int>(std::min<size_t>(received.size(), 2000)), received.data());
  __builtin_trap();
}

// ---- The server and its handler ----

// What the handler was asked, per connection ("ip:port" of the client).
struct Dispatched {
  std::string method;
  int status;
};
std::mutex dispatched_mutex;
std::map<std::string, std::vector<Dispatched>> dispatched;

int RequestedStatus(std::string_view path) {
  constexpr std::string_view kPrefix = "/status/";
  if (!path.starts_with(kPrefix) || path.size() != kPrefix.size() + 3) return 200;
  const std::string_view digits = path.substr(kPrefix.size());
  if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) return 200;
  const int status = std::stoi(std::string(digits));
  // Final statuses only: a handler cannot answer 1xx.
  return status >= 200 && beast_http::int_to_status(status) != beast_http::status::unknown ? status : 200;
}

void Handle(pagoda::http::Request request, std::shared_ptr<pagoda::http::Responder> responder) {
  const int status = RequestedStatus(request.path);
  size_t seq;
  {
    std::lock_guard lock(dispatched_mutex);
    std::vector<Dispatched>& list = dispatched[request.remote];
    seq = list.size();
    list.push_back({request.method, status});
  }
  pagoda::http::Headers headers = {{"X-Fuzz-Seq", std::to_string(seq)}};
  const std::string echo = request.method + " " + std::to_string(request.path.size()) + "-byte path, " +
                           std::to_string(request.body.size()) + "-byte body\n";
  if (request.path.starts_with("/stream")) {
    responder->StartStream(status, "text/plain", std::move(headers));
    for (int i = 0; i < 3; ++i) responder->Write(echo);
    responder->End();
  } else {
    responder->Send({.status = status, .content_type = "text/plain", .body = echo, .headers = std::move(headers)});
  }
}

uint16_t ServerPort() {
  static const std::unique_ptr<pagoda::http::Server> server = [] {
    spdlog::set_level(spdlog::level::warn);  // no access log line per input
    pagoda::http::ServerConfig config;
    config.port = 0;
    // Small, so that inputs of a few kB reach the limits.
    config.max_body_bytes = 1024;
    config.max_header_bytes = 1024;
    config.read_timeout = std::chrono::seconds(1);
    config.idle_timeout = std::chrono::seconds(1);
    config.write_timeout = std::chrono::seconds(1);
    auto started = pagoda::http::Server::Start(config, Handle);
    if (!started.ok()) Fail("cannot start the server: " + started.status().ToString());
    return std::move(*started);
  }();
  return server->port();
}

// ---- The client ----

class Connection {
 public:
  explicit Connection(uint16_t port) : fd_(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    if (fd_ < 0) Fail("socket failed");
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    deadline_ = Clock::now() + kCloseTimeout;
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) FinishConnect(errno);
    deadline_ = Clock::now() + kCloseTimeout;
    const int one = 1;
    ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    socklen_t len = sizeof(addr);
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    remote_ = "127.0.0.1:" + std::to_string(ntohs(addr.sin_port));
  }
  ~Connection() { ::close(fd_); }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // How the server names this client.
  const std::string& remote() const { return remote_; }
  const std::string& received() const { return received_; }

  // Sends `bytes`, reading meanwhile so that neither side blocks the other.
  // A send error (the server closed) ends the sending quietly.
  void Send(std::string_view bytes) {
    while (!bytes.empty() && !send_failed_ && !eof_) {
      pollfd p{fd_, POLLIN | POLLOUT, 0};
      if (!Poll(p)) TimedOut("the server neither reads nor writes");
      if (p.revents & POLLIN) ReadSome();
      if (p.revents & (POLLOUT | POLLERR | POLLHUP)) {
        const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0 && errno != EAGAIN && errno != EINTR) send_failed_ = true;
        if (n > 0) bytes.remove_prefix(static_cast<size_t>(n));
      }
    }
  }
  void ShutdownWrite() { ::shutdown(fd_, SHUT_WR); }
  // Reads until the server closes (EOF or reset).
  void ReadToEnd() {
    while (!eof_) {
      pollfd p{fd_, POLLIN, 0};
      if (!Poll(p)) TimedOut("the server did not close the connection in time");
      ReadSome();
    }
  }

 private:
  [[noreturn]] void TimedOut(const std::string& what) const;
  // A connect that a signal interrupted goes on in the background; the
  // socket turns writable when it is done.
  void FinishConnect(int error) {
    if (error == EINTR) {
      pollfd p{fd_, POLLOUT, 0};
      if (!Poll(p)) Fail("connect timed out");
      socklen_t len = sizeof(error);
      ::getsockopt(fd_, SOL_SOCKET, SO_ERROR, &error, &len);
    }
    if (error != 0) Fail(std::string("connect failed: ") + std::strerror(error));
  }
  // Waits for `p`'s events until the deadline; false if it passed. A signal
  // (libFuzzer's timeout alarm) interrupts poll without ending the wait.
  bool Poll(pollfd& p) const {
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - Clock::now()).count();
      const int n = ::poll(&p, 1, static_cast<int>(std::max<int64_t>(0, left)));
      if (n > 0) return true;
      if (n == 0 || errno != EINTR) return false;
    }
  }
  void ReadSome() {
    char chunk[16384];
    const ssize_t n = ::recv(fd_, chunk, sizeof(chunk), MSG_DONTWAIT);
    if (n > 0) received_.append(chunk, static_cast<size_t>(n));
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) eof_ = true;
  }

  int fd_;
  std::string remote_;
  std::string received_;
  Clock::time_point deadline_;
  bool send_failed_ = false;
  bool eof_ = false;
};

size_t DispatchedCount(const std::string& remote) {
  std::lock_guard lock(dispatched_mutex);
  const auto it = dispatched.find(remote);
  return it == dispatched.end() ? 0 : it->second.size();
}

void Connection::TimedOut(const std::string& what) const {
  Fail(what + " within " + std::to_string(std::chrono::duration_cast<std::chrono::seconds>(kCloseTimeout).count()) +
           " s (the handler had " + std::to_string(DispatchedCount(remote_)) + " of its requests)",
       received_);
}

// ---- Checking what came back ----

struct Parsed {
  int status = 0;
  bool has_seq = false;
  size_t seq = 0;
  bool complete = false;  // false: cut off by the end of the connection
  std::string error;      // not a valid HTTP/1.1 response
};

// Parses one response at `*offset`, advancing it.
Parsed ParseResponse(const std::string& received, size_t* offset, bool head_request) {
  beast_http::response_parser<beast_http::string_body> parser;
  parser.eager(true);
  parser.skip(head_request);
  parser.body_limit(boost::none);
  Parsed parsed;
  while (!parser.is_done()) {
    boost::beast::error_code ec;
    if (*offset == received.size()) {
      if (!parser.is_header_done() || !parser.need_eof()) return parsed;  // cut off
      parser.put_eof(ec);  // a body that ends with the connection
    } else {
      *offset += parser.put(boost::asio::buffer(received.data() + *offset, received.size() - *offset), ec);
      if (ec == beast_http::error::need_more) return parsed;  // cut off: these are all the bytes
    }
    if (ec) {
      parsed.error = "malformed response: " + ec.message();
      return parsed;
    }
  }
  const auto& message = parser.get();
  parsed.status = static_cast<int>(message.result_int());
  if (message.version() != 11) parsed.error = "a response that is not HTTP/1.1";
  if (beast_http::int_to_status(parsed.status) == beast_http::status::unknown) parsed.error = "an invalid status";
  if (!parsed.error.empty()) return parsed;
  const auto seq = message.find("X-Fuzz-Seq");
  if (seq != message.end()) {
    parsed.has_seq = true;
    parsed.seq = std::stoul(std::string(seq->value()));
  }
  parsed.complete = true;
  return parsed;
}

bool IsServerError(int status) { return status == 400 || status == 408 || status == 413 || status == 431; }

// The method of the request that follows the first `n` complete requests in
// `sent`: the one a server's own error answers, which the handler never saw.
// Its error has no body when it is a HEAD (RFC 9110), as any response to HEAD.
// Empty when the bytes cannot be read that far.
std::string MethodAfter(std::string_view sent, size_t n) {
  size_t offset = 0;
  for (size_t i = 0; i < n; ++i) {
    beast_http::request_parser<beast_http::string_body> parser;
    parser.eager(true);
    parser.body_limit(boost::none);
    parser.header_limit(UINT32_MAX);
    while (!parser.is_done()) {
      boost::beast::error_code ec;
      const size_t used = parser.put(boost::asio::buffer(sent.data() + offset, sent.size() - offset), ec);
      offset += used;
      if (ec || used == 0) return "";
    }
  }
  // RFC 9112 lets a server skip empty lines before a request line.
  while (offset < sent.size() && (sent[offset] == '\r' || sent[offset] == '\n')) ++offset;
  const size_t space = sent.find(' ', offset);
  return space == std::string_view::npos ? "" : std::string(sent.substr(offset, space - offset));
}

void CheckResponses(const std::string& received, const std::vector<Dispatched>& requests, std::string_view sent) {
  size_t offset = 0;
  size_t answered = 0;  // of `requests`
  while (offset < received.size()) {
    Parsed r;
    if (answered < requests.size()) {
      r = ParseResponse(received, &offset, requests[answered].method == "HEAD");
    } else {
      // Only the server's own error can come now. It has no body if the
      // server read a HEAD request before refusing it (a missing Host, say),
      // and one if it could not tell the method (a malformed request line).
      size_t end = offset;
      r = ParseResponse(received, &end, false);
      if ((!r.error.empty() || !r.complete) && MethodAfter(sent, answered) == "HEAD") {
        size_t head_end = offset;
        const Parsed head = ParseResponse(received, &head_end, true);
        if (head.error.empty() && head.complete) {
          r = head;
          end = head_end;
        }
      }
      offset = end;
    }
    if (!r.error.empty()) Fail(r.error, received);
    if (!r.complete) return;  // the last one, cut: see the top
    if (r.status == 100 && !r.has_seq) continue;  // 100 Continue before a body
    if (r.has_seq) {
      if (r.seq != answered || answered == requests.size()) Fail("a response out of order", received);
      if (r.status != requests[answered].status) Fail("not the status the handler sent", received);
      ++answered;
      continue;
    }
    if (!IsServerError(r.status)) Fail("the server sent " + std::to_string(r.status) + " of its own", received);
    if (offset != received.size()) Fail("bytes after the server's error response", received);
  }
}

std::vector<Dispatched> TakeDispatched(const std::string& remote) {
  std::lock_guard lock(dispatched_mutex);
  const auto it = dispatched.find(remote);
  if (it == dispatched.end()) return {};
  std::vector<Dispatched> requests = std::move(it->second);
  dispatched.erase(it);
  return requests;
}

// A well-formed request on a fresh connection gets its 200.
void CheckServerAnswers(uint16_t port) {
  Connection c(port);
  c.Send("GET /alive HTTP/1.1\r\nHost: fuzz\r\nConnection: close\r\n\r\n");
  c.ReadToEnd();
  const std::vector<Dispatched> requests = TakeDispatched(c.remote());
  size_t offset = 0;
  const Parsed r = ParseResponse(c.received(), &offset, false);
  if (!r.error.empty() || !r.complete || r.status != 200 || !r.has_seq || requests.size() != 1) {
    Fail("the server no longer answers a well-formed request", c.received());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const size_t splits = std::min<size_t>(data[0] & 3, size - 1);
  const std::string_view bytes(reinterpret_cast<const char*>(data) + 1 + splits, size - 1 - splits);
  std::vector<size_t> cuts;
  for (size_t i = 0; i < splits; ++i) cuts.push_back(data[1 + i] * bytes.size() / 256);
  std::sort(cuts.begin(), cuts.end());
  cuts.push_back(bytes.size());

  const uint16_t port = ServerPort();
  {
    Connection c(port);
    size_t from = 0;
    for (size_t cut : cuts) {
      if (from > 0) std::this_thread::sleep_for(kPauseBetweenWrites);
      c.Send(bytes.substr(from, cut - from));
      from = cut;
    }
    c.ShutdownWrite();
    c.ReadToEnd();
    CheckResponses(c.received(), TakeDispatched(c.remote()), bytes);
  }
  CheckServerAnswers(port);
  return 0;
}
