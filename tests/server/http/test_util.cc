#include "test_util.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

#include <boost/asio/buffer.hpp>
#include <boost/beast/http/error.hpp>
// Beast 1.74's parser trips a false -Wmaybe-uninitialized once inlined, as
// it is under the sanitizers.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <boost/beast/http/parser.hpp>
#pragma GCC diagnostic pop
#include <boost/beast/http/string_body.hpp>
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "pagoda/server/http/ascii.h"

namespace pagoda::http::testing {
namespace {

using Clock = std::chrono::steady_clock;

std::chrono::milliseconds Remaining(Clock::time_point deadline) {
  return std::max(std::chrono::milliseconds(0),
                  std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()));
}

}  // namespace

std::string ClientResponse::header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (internal::EqualsIgnoreCase(key, name)) return value;
  }
  return "";
}

TestClient::TestClient(uint16_t port) {
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0) {
    ADD_FAILURE() << "socket: " << std::strerror(errno);
    return;
  }
  // A send that cannot go on for this long fails instead of hanging the test.
  timeval send_timeout{.tv_sec = kTimeout.count(), .tv_usec = 0};
  ::setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &send_timeout, sizeof(send_timeout));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd_, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0) {
    ADD_FAILURE() << "connect: " << std::strerror(errno);
    ::close(fd_);
    fd_ = -1;
  }
}

TestClient::~TestClient() {
  if (fd_ >= 0) ::close(fd_);
}

uint16_t TestClient::local_port() const {
  sockaddr_in address{};
  socklen_t size = sizeof(address);
  ::getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &size);
  return ntohs(address.sin_port);
}

bool TestClient::Send(std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

long TestClient::ReadMore(std::chrono::milliseconds timeout) {
  pollfd p{.fd = fd_, .events = POLLIN, .revents = 0};
  if (::poll(&p, 1, static_cast<int>(timeout.count())) <= 0) return -1;
  char chunk[16384];
  const ssize_t n = ::recv(fd_, chunk, sizeof(chunk), 0);
  if (n > 0) buffer_.append(chunk, static_cast<size_t>(n));
  return n;
}

std::optional<ClientResponse> TestClient::ReadResponse(bool head_request) {
  namespace beast_http = boost::beast::http;
  beast_http::response_parser<beast_http::string_body> parser;
  parser.body_limit(boost::none);
  parser.eager(true);
  parser.skip(head_request);
  const Clock::time_point deadline = Clock::now() + kTimeout;
  while (!parser.is_done()) {
    boost::system::error_code ec;
    if (!buffer_.empty()) {
      const size_t used = parser.put(boost::asio::buffer(buffer_), ec);
      buffer_.erase(0, used);
      if (parser.is_done()) break;
      if (ec && ec != beast_http::error::need_more) {
        ADD_FAILURE() << "bad response: " << ec.message();
        return std::nullopt;
      }
      if (!ec && used > 0) continue;
    }
    const long n = ReadMore(Remaining(deadline));
    if (n == 0) {
      parser.put_eof(ec);  // a body that ends with the connection
      if (!ec && parser.is_done()) break;
    }
    if (n <= 0) return std::nullopt;
  }
  ClientResponse response;
  const auto& message = parser.get();
  response.status = static_cast<int>(message.result_int());
  for (const auto& field : message) {
    response.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
  }
  response.body = message.body();
  return response;
}

bool TestClient::WaitFor(std::string_view needle) {
  const Clock::time_point deadline = Clock::now() + kTimeout;
  while (buffer_.find(needle) == std::string::npos) {
    if (ReadMore(Remaining(deadline)) <= 0) return false;
  }
  return true;
}

bool TestClient::WaitForClose() {
  const Clock::time_point deadline = Clock::now() + kTimeout;
  for (;;) {
    if (Clock::now() >= deadline) return false;
    pollfd p{.fd = fd_, .events = POLLIN, .revents = 0};
    if (::poll(&p, 1, static_cast<int>(Remaining(deadline).count())) <= 0) return false;
    char chunk[16384];
    const ssize_t n = ::recv(fd_, chunk, sizeof(chunk), 0);
    if (n <= 0) return true;
    buffer_.append(chunk, static_cast<size_t>(n));
  }
}

void TestClient::FinishSending() { ::shutdown(fd_, SHUT_WR); }

std::optional<ClientResponse> TestClient::ReadFinalResponse() {
  std::optional<ClientResponse> response = ReadResponse();
  while (response && response->status < 200) response = ReadResponse();
  return response;
}

void TestClient::Abort() {
  linger reset{.l_onoff = 1, .l_linger = 0};
  ::setsockopt(fd_, SOL_SOCKET, SO_LINGER, &reset, sizeof(reset));
  ::close(fd_);
  fd_ = -1;
}

std::string MakeRequest(std::string_view method, std::string_view target, std::string_view body,
                        std::string_view extra_headers) {
  std::string request = fmt::format("{} {} HTTP/1.1\r\nHost: test\r\n{}", method, target, extra_headers);
  if (!body.empty()) request += fmt::format("Content-Length: {}\r\n", body.size());
  request += "\r\n";
  request += body;
  return request;
}

std::unique_ptr<Server> StartTestServer(Handler handler, ServerConfig config) {
  config.host = "127.0.0.1";
  config.port = 0;
  config.make_error = [](int status, std::string message) {
    Response response;
    response.status = status;
    response.content_type = "text/plain";
    response.body = fmt::format("error {}: {}", status, message);
    return response;
  };
  auto server = Server::Start(std::move(config), std::move(handler));
  if (!server.ok()) {
    ADD_FAILURE() << server.status().ToString();
    return nullptr;
  }
  return std::move(server).value();
}

void EchoHandler(Request request, std::shared_ptr<Responder> responder) {
  Response response;
  response.content_type = "text/plain";
  response.body = fmt::format("{} {} path={} x-test={} remote={} body={}", request.method, request.target, request.path,
                              request.header("x-TEST").value_or("-"), request.remote, request.body);
  responder->Send(std::move(response));
}

bool WaitUntil(const std::function<bool()>& done, std::chrono::milliseconds timeout) {
  const Clock::time_point deadline = Clock::now() + timeout;
  while (!done()) {
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

void ResponderBox::Put(Request request, std::shared_ptr<Responder> responder) {
  std::lock_guard lock(mu_);
  entries_.emplace_back(std::move(request), std::move(responder));
  arrived_.notify_all();
}

bool ResponderBox::WaitForCount(size_t n, std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  return arrived_.wait_for(lock, timeout, [&] { return entries_.size() >= n; });
}

std::vector<std::shared_ptr<Responder>> ResponderBox::responders() const {
  std::lock_guard lock(mu_);
  std::vector<std::shared_ptr<Responder>> out;
  for (const auto& entry : entries_) out.push_back(entry.second);
  return out;
}

std::shared_ptr<Responder> ResponderBox::at(size_t i) const {
  std::lock_guard lock(mu_);
  return entries_.at(i).second;
}

Handler KeepResponders(ResponderBox& box) {
  return [&box](Request request, std::shared_ptr<Responder> responder) { box.Put(std::move(request), responder); };
}

}  // namespace pagoda::http::testing
