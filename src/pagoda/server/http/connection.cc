#include "pagoda/server/http/connection.h"

#include <algorithm>
#include <exception>
#include <utility>

#include <boost/asio/buffer.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/http/error.hpp>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "pagoda/server/http/access_log.h"
#include "pagoda/server/http/ascii.h"
#include "pagoda/server/http/connection_responder.h"
#include "pagoda/server/http/server_error.h"
#include "pagoda/server/http/server_state.h"
#include "pagoda/server/http/wire_format.h"

namespace pagoda::http::internal {
namespace {

namespace asio = boost::asio;
namespace beast_http = boost::beast::http;
using boost::system::error_code;

// Pipelined bytes kept while a response is pending. Past this, reading
// pauses until the response is done (and a disconnect goes unnoticed
// until then).
constexpr size_t kMaxInputWhileBusy = 64 * 1024;
// After the last response, input is drained this long waiting for the
// client to close: closing with unread input would send a reset, which can
// destroy the response (a 413, say) before the client reads it.
constexpr auto kLingerTime = std::chrono::seconds(2);
constexpr size_t kMaxBuffersPerWrite = 64;
// How often a client that half-closed is probed while its response is
// pending, to notice if it has gone away.
constexpr auto kProbeInterval = std::chrono::milliseconds(500);

std::string_view View(boost::beast::string_view s) { return {s.data(), s.size()}; }

std::string FormatRemote(const Connection::Socket& socket) {
  error_code ec;
  const auto endpoint = socket.remote_endpoint(ec);
  if (ec) return "?";
  const auto address = endpoint.address();
  return address.is_v6() ? fmt::format("[{}]:{}", address.to_string(), endpoint.port())
                         : fmt::format("{}:{}", address.to_string(), endpoint.port());
}

std::string RequestLine(const beast_http::request_header<>& header) {
  return fmt::format("{} {} HTTP/{}.{}", View(header.method_string()), View(header.target()), header.version() / 10,
                     header.version() % 10);
}

Request ToRequest(beast_http::request<beast_http::string_body>&& message, const std::string& remote) {
  Request request;
  request.method = View(message.method_string());
  request.target = View(message.target());
  request.path = request.target.substr(0, request.target.find('?'));
  request.remote = remote;
  request.version = static_cast<int>(message.version());
  for (const auto& field : message) request.headers.emplace_back(View(field.name_string()), View(field.value()));
  request.body = std::move(message.body());
  return request;
}

std::string CurrentExceptionMessage() {
  try {
    throw;
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "an exception not derived from std::exception";
  }
}

}  // namespace

Connection::Connection(Socket socket, std::shared_ptr<ServerState> server)
    : socket_(std::move(socket)),
      server_(std::move(server)),
      remote_(FormatRemote(socket_)),
      read_timer_(socket_.get_executor()),
      write_timer_(socket_.get_executor()) {}

void Connection::Start() {
  error_code ignored;
  // Streamed tokens are small writes; Nagle would hold each back for an ACK.
  socket_.set_option(asio::ip::tcp::no_delay(true), ignored);
  ArmReadTimer(server_->config.idle_timeout);
  Read();
}

void Connection::BeginShutdown() {
  shutting_down_ = true;
  if (phase_ == Phase::kIdle || (phase_ == Phase::kClosing && !exchange_.active)) Close("");
}

void Connection::ForceClose() { Close("server shutting down"); }

// ---- Reading ----

void Connection::Read() {
  if (reading_ || phase_ == Phase::kClosed || peer_closed_) return;
  if (phase_ == Phase::kBusy && input_.size() >= kMaxInputWhileBusy) return;
  reading_ = true;
  socket_.async_read_some(asio::buffer(read_chunk_), [self = shared_from_this()](const error_code& ec, size_t n) {
    self->OnRead(ec, n);
  });
}

void Connection::OnRead(const error_code& ec, size_t n) {
  reading_ = false;
  if (phase_ == Phase::kClosed) return;
  if (ec) {
    if (phase_ == Phase::kClosing && ec == asio::error::eof) {
      // The client finished sending; the response may still be going out.
      peer_closed_ = true;
      if (!exchange_.active) Close("");
      return;
    }
    if (phase_ == Phase::kBusy && ec == asio::error::eof && exchange_.version >= 11) {
      OnPeerFinishedSending();
      return;
    }
    Close(phase_ == Phase::kBusy ? "client disconnected" : "");
    return;
  }
  if (phase_ != Phase::kClosing) {
    input_.commit(asio::buffer_copy(input_.prepare(n), asio::buffer(read_chunk_.data(), n)));
    if (phase_ == Phase::kIdle) BeginRequest();
    if (phase_ == Phase::kReading) Parse();
  }
  Read();
}

void Connection::OnPeerFinishedSending() {
  // A client that half-closes after its request and one that went away
  // send the same FIN. The response is still owed to the first; writing
  // tells them apart, since a closed socket answers data with a reset and
  // the next write fails. So the client is probed until the response is
  // done: before the response starts with interim 100 responses, which
  // HTTP/1.1 clients must accept before the final one; within a stream with
  // its keep-alive bytes (a stream waiting in the queue writes nothing for
  // a long time).
  peer_closed_ = true;
  ProbePeer();
}

void Connection::ProbePeer() {
  if (exchange_.progress == Progress::kNone) {
    Queue(std::string(kContinue));
  } else if (exchange_.progress == Progress::kStreaming && !exchange_.keepalive.empty() && exchange_.chunked) {
    exchange_.body_bytes += exchange_.keepalive.size();
    Queue(Chunk(exchange_.keepalive));
  } else {
    return;  // the response is going out: its own writes tell
  }
  Flush();
  ArmReadTimer(kProbeInterval);
}

void Connection::BeginRequest() {
  phase_ = Phase::kReading;
  exchange_ = Exchange{};
  exchange_.start = Clock::now();
  parser_.emplace();
  parser_->header_limit(static_cast<std::uint32_t>(std::min<size_t>(server_->config.max_header_bytes, UINT32_MAX)));
  parser_->body_limit(server_->config.max_body_bytes);
  parser_->eager(true);
  ArmReadTimer(server_->config.read_timeout);
}

void Connection::Parse() {
  while (input_.size() > 0 && !parser_->is_done()) {
    error_code ec;
    const size_t used = parser_->put(input_.data(), ec);
    input_.consume(used);
    if (ec == beast_http::error::need_more) break;
    if (ec) {
      NoteRequestLine();
      if (ec == beast_http::error::header_limit) {
        SendServerError(431, "the request header is too large");
      } else if (ec == beast_http::error::body_limit) {
        SendServerError(413, fmt::format("the request body is larger than {} bytes", server_->config.max_body_bytes));
      } else {
        SendServerError(400, "malformed HTTP request: " + ec.message());
      }
      return;
    }
  }
  if (parser_->is_done()) {
    Dispatch();
    return;
  }
  // curl and others wait (a second, by default) for this before sending a
  // large body.
  if (parser_->is_header_done() && !exchange_.continue_sent && parser_->get().version() >= 11 &&
      EqualsIgnoreCase(View(parser_->get()[beast_http::field::expect]), "100-continue")) {
    exchange_.continue_sent = true;
    Queue(std::string(kContinue));
    Flush();
  }
}

void Connection::NoteRequestLine() {
  // The start line is in once the target is (a 413 comes before the head ends).
  if (!parser_->get().target().empty()) exchange_.request_line = RequestLine(parser_->get());
}

void Connection::Dispatch() {
  CancelReadTimer();
  phase_ = Phase::kBusy;
  beast_http::request<beast_http::string_body> message = parser_->release();
  parser_.reset();
  exchange_.active = true;
  exchange_.request_line = RequestLine(message);
  exchange_.version = static_cast<int>(message.version());
  exchange_.keep_alive = message.keep_alive();
  exchange_.head_only = message.method() == beast_http::verb::head;
  // RFC 9112, section 3.2.
  if (exchange_.version >= 11 && message.count(beast_http::field::host) != 1) {
    SendServerError(400, "an HTTP/1.1 request must carry exactly one Host header");
    return;
  }
  if (shutting_down_) {
    SendServerError(503, "the server is shutting down");
    return;
  }
  auto responder = std::make_shared<ConnectionResponder>(weak_from_this(), server_->lifeline);
  exchange_.responder = responder;
  try {
    server_->handler(ToRequest(std::move(message), remote_), responder);
  } catch (...) {
    spdlog::error("http: handler for \"{}\" threw: {}", exchange_.request_line, CurrentExceptionMessage());
    // Posted, so it runs after whatever the handler posted before throwing.
    asio::post(executor(), [self = shared_from_this(), responder] { self->HandlerFailed(responder.get()); });
  }
  Read();  // keeps watching for a disconnect
}

void Connection::HandlerFailed(const ConnectionResponder* from) {
  if (!IsCurrent(from)) return;
  switch (exchange_.progress) {
    case Progress::kNone:
      QueueResponse(ServerErrorResponse(server_->config, 500, "internal server error"));
      Flush();
      break;
    case Progress::kStreaming:
      Close("handler failed");  // the client sees a truncated stream
      break;
    case Progress::kComplete:
      break;
  }
}

void Connection::OnReadTimeout() {
  switch (phase_) {
    case Phase::kIdle:
    case Phase::kClosing:
      Close("");
      break;
    case Phase::kReading:
      NoteRequestLine();
      SendServerError(408, fmt::format("the request did not arrive within {} s",
                                       server_->config.read_timeout.count()));
      break;
    case Phase::kBusy:
      if (peer_closed_) ProbePeer();
      break;
    case Phase::kClosed:
      break;
  }
}

// ---- Responding ----

bool Connection::IsCurrent(const ConnectionResponder* from) const {
  return phase_ != Phase::kClosed && from != nullptr && exchange_.responder.get() == from;
}

std::string_view Connection::ConnectionHeader() {
  if (shutting_down_) exchange_.keep_alive = false;
  if (!exchange_.keep_alive) return "close";
  return exchange_.version < 11 ? "keep-alive" : "";  // HTTP/1.0 closes unless told
}

void Connection::Send(const ConnectionResponder* from, Response response) {
  if (!IsCurrent(from)) return;
  if (exchange_.progress != Progress::kNone) {
    spdlog::warn("http: \"{}\": Send after the response started; ignored", exchange_.request_line);
    return;
  }
  QueueResponse(std::move(response));
  Flush();
}

void Connection::QueueResponse(Response response) {
  exchange_.progress = Progress::kComplete;
  exchange_.status = response.status;
  const bool has_body = StatusAllowsBody(response.status);
  ResponseHead head;
  head.status = response.status;
  head.content_type = response.content_type;
  head.headers = &response.headers;
  head.framing = has_body ? Framing::kContentLength : Framing::kNoBody;
  head.content_length = response.body.size();
  head.connection = ConnectionHeader();
  Queue(FormatHead(head));
  if (has_body && !exchange_.head_only && !response.body.empty()) {
    exchange_.body_bytes = response.body.size();
    Queue(std::move(response.body));
  }
}

void Connection::StartStream(const ConnectionResponder* from, int status, std::string content_type,
                             Headers headers, std::string keepalive) {
  if (!IsCurrent(from)) return;
  if (exchange_.progress != Progress::kNone) {
    spdlog::warn("http: \"{}\": StartStream after the response started; ignored", exchange_.request_line);
    return;
  }
  exchange_.progress = Progress::kStreaming;
  exchange_.status = status;
  exchange_.streamed = true;
  exchange_.keepalive = std::move(keepalive);
  exchange_.chunked = exchange_.version >= 11;
  if (!exchange_.chunked) exchange_.keep_alive = false;  // the body ends with the connection
  ResponseHead head;
  head.status = status;
  head.content_type = content_type;
  head.headers = &headers;
  head.framing = exchange_.chunked ? Framing::kChunked : Framing::kUntilClose;
  head.connection = ConnectionHeader();
  Queue(FormatHead(head));
  Flush();
}

void Connection::Write(const ConnectionResponder* from, std::string data) {
  if (!IsCurrent(from)) return;
  if (exchange_.progress != Progress::kStreaming) {
    spdlog::warn("http: \"{}\": Write outside a stream; ignored", exchange_.request_line);
    return;
  }
  if (data.empty() || exchange_.head_only) return;
  exchange_.body_bytes += data.size();
  Queue(exchange_.chunked ? Chunk(data) : std::move(data));
  if (pending_bytes_ > server_->config.max_pending_write_bytes) {
    Close("client not reading");
    return;
  }
  Flush();
}

void Connection::End(const ConnectionResponder* from) {
  if (!IsCurrent(from)) return;
  if (exchange_.progress != Progress::kStreaming) {
    spdlog::warn("http: \"{}\": End outside a stream; ignored", exchange_.request_line);
    return;
  }
  if (exchange_.chunked && !exchange_.head_only) Queue(std::string(kLastChunk));
  exchange_.progress = Progress::kComplete;
  Flush();
}

void Connection::SendServerError(int status, std::string message) {
  CancelReadTimer();
  phase_ = Phase::kClosing;  // nothing more is read as a request
  exchange_.active = true;
  exchange_.keep_alive = false;
  QueueResponse(ServerErrorResponse(server_->config, status, std::move(message)));
  Flush();
  Read();  // drains what the client still sends (a rejected body)
}

void Connection::Queue(std::string bytes) {
  pending_bytes_ += bytes.size();
  output_.push_back(std::move(bytes));
}

void Connection::Flush() {
  if (writing_ || phase_ == Phase::kClosed) return;
  if (output_.empty()) {
    if (exchange_.active && exchange_.progress == Progress::kComplete) FinishExchange();
    return;
  }
  write_buffers_.clear();
  size_t offset = output_offset_;
  for (const std::string& bytes : output_) {
    write_buffers_.push_back(asio::buffer(bytes) + offset);
    offset = 0;
    if (write_buffers_.size() == kMaxBuffersPerWrite) break;
  }
  writing_ = true;
  // One async write at a time keeps the queue's order on the wire. A write
  // that makes no progress for write_timeout means the client is gone.
  write_timer_.expires_after(server_->config.write_timeout);
  write_timer_.async_wait(
      [self = shared_from_this(), generation = ++write_timer_generation_](const error_code& ec) {
        if (!ec && generation == self->write_timer_generation_) self->Close("write timed out");
      });
  socket_.async_write_some(write_buffers_, [self = shared_from_this()](const error_code& ec, size_t n) {
    self->OnWrite(ec, n);
  });
}

void Connection::OnWrite(const error_code& ec, size_t n) {
  writing_ = false;
  ++write_timer_generation_;
  write_timer_.cancel();
  if (phase_ == Phase::kClosed) return;
  if (ec) {
    Close("write failed");
    return;
  }
  pending_bytes_ -= n;
  while (n > 0) {
    const size_t left = output_.front().size() - output_offset_;
    if (n < left) {
      output_offset_ += n;
      break;
    }
    n -= left;
    output_.pop_front();
    output_offset_ = 0;
  }
  Flush();
}

void Connection::FinishExchange() {
  LogExchange("");
  if (exchange_.responder != nullptr) exchange_.responder->MarkComplete();
  const bool keep_alive = exchange_.keep_alive && !shutting_down_;
  exchange_ = Exchange{};
  // After a half-close only what was already sent can still be answered.
  if (!keep_alive || (peer_closed_ && input_.size() == 0)) {
    StartClosing();
    return;
  }
  phase_ = Phase::kIdle;
  if (input_.size() > 0) {
    BeginRequest();  // pipelined
    Parse();
    if (peer_closed_ && phase_ == Phase::kReading) Close("");  // the rest of it will never come
  } else {
    ArmReadTimer(server_->config.idle_timeout);
  }
  Read();
}

void Connection::LogExchange(std::string_view why) const {
  if (!server_->config.access_log) return;
  std::string note;
  if (exchange_.streamed) note = "stream";
  if (!why.empty()) note = note.empty() ? std::string(why) : fmt::format("{}, {}", note, why);
  LogAccess({.remote = remote_,
             .request_line = exchange_.request_line,
             .status = exchange_.progress == Progress::kNone ? 0 : exchange_.status,
             .body_bytes = exchange_.body_bytes,
             .elapsed = Clock::now() - exchange_.start,
             .note = note});
}

// ---- Closing ----

void Connection::StartClosing() {
  phase_ = Phase::kClosing;
  error_code ignored;
  socket_.shutdown(Socket::shutdown_send, ignored);
  // While the server stops, the wait for the client's close would only
  // hold Stop up.
  if (peer_closed_ || shutting_down_) {
    Close("");
    return;
  }
  ArmReadTimer(kLingerTime);
  Read();
}

void Connection::Close(std::string_view why) {
  if (phase_ == Phase::kClosed) return;
  phase_ = Phase::kClosed;
  CancelReadTimer();
  ++write_timer_generation_;
  write_timer_.cancel();
  error_code ignored;
  socket_.close(ignored);
  if (exchange_.active) {
    LogExchange(why.empty() ? "connection closed" : why);
    if (exchange_.responder != nullptr) exchange_.responder->MarkGone();
    exchange_ = Exchange{};
  }
  server_->registry.Remove(this);  // last: Stop() waits for this
}

void Connection::ArmReadTimer(Clock::duration timeout) {
  read_timer_.expires_after(timeout);
  read_timer_.async_wait([self = shared_from_this(), generation = ++read_timer_generation_](const error_code& ec) {
    if (!ec && generation == self->read_timer_generation_) self->OnReadTimeout();
  });
}

void Connection::CancelReadTimer() {
  ++read_timer_generation_;
  read_timer_.cancel();
}

}  // namespace pagoda::http::internal
