// One client connection: reads requests, hands each to the handler, writes
// its response, then serves the next one (keep-alive). Everything here runs
// on the connection's strand, the executor of its socket and timers; the
// Responder's calls and the server's Stop are posted there.
//
// One read stays outstanding also while the handler works on a request, so
// that a client that disconnects is noticed (a reset, or an EOF that probing
// shows is not a half-close) before its response is written. Bytes read meanwhile (a pipelined next request) are
// kept for later, up to a cap. Writes are queued and go out in order, one
// async write at a time.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
// Beast 1.74's parser trips a false -Wmaybe-uninitialized (a boost::optional
// returned as none) once inlined, as it is under the sanitizers. Clang (the
// fuzz build) has no such warning and would flag the unknown option.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <boost/beast/http/parser.hpp>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#include <boost/beast/http/string_body.hpp>

#include "pagoda/server/http/response.h"

namespace pagoda::http::internal {

struct ServerState;
class ConnectionResponder;

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  using Socket = boost::asio::ip::tcp::socket;
  using Executor = Socket::executor_type;

  Connection(Socket socket, std::shared_ptr<ServerState> server);

  Executor executor() { return socket_.get_executor(); }

  // The rest runs on the strand.
  void Start();
  // Stop() began: idle connections close now, busy ones after their response.
  void BeginShutdown();
  // Stop()'s grace is over.
  void ForceClose();

  // The Responder's calls; `from` must be the current request's Responder.
  void Send(const ConnectionResponder* from, Response response);
  void StartStream(const ConnectionResponder* from, int status, std::string content_type, Headers headers,
                   std::string keepalive);
  void Write(const ConnectionResponder* from, std::string data);
  void End(const ConnectionResponder* from);

 private:
  using Clock = std::chrono::steady_clock;
  using Parser = boost::beast::http::request_parser<boost::beast::http::string_body>;

  enum class Phase {
    kIdle,     // waiting for a request's first byte (idle timeout)
    kReading,  // a request is arriving (read timeout)
    kBusy,     // the request is with the handler or its response is going out
    kClosing,  // the last response is going out or went out; input is dropped
    kClosed,
  };
  enum class Progress { kNone, kStreaming, kComplete };  // of the current response

  // The request being answered and what was sent for it so far.
  struct Exchange {
    bool active = false;  // dispatched, or answered by the server itself
    std::string request_line = "-";
    Clock::time_point start;  // its first byte
    std::shared_ptr<ConnectionResponder> responder;  // null for the server's own errors
    Progress progress = Progress::kNone;
    int status = 0;
    uint64_t body_bytes = 0;
    int version = 11;
    bool keep_alive = false;
    bool head_only = false;  // HEAD: the head without the body
    bool chunked = false;
    bool streamed = false;
    bool continue_sent = false;  // "100 Continue"
    std::string keepalive;       // a stream's no-op bytes, for probing
  };

  // Reading and parsing.
  void Read();
  void OnRead(const boost::system::error_code& ec, size_t n);
  void BeginRequest();
  void Parse();
  void NoteRequestLine();  // for the access log of a request the server rejects
  void Dispatch();
  // EOF while a response is pending: a half-close, or a client gone.
  void OnPeerFinishedSending();
  void ProbePeer();
  void HandlerFailed(const ConnectionResponder* from);
  void OnReadTimeout();

  // Responding.
  bool IsCurrent(const ConnectionResponder* from) const;
  std::string_view ConnectionHeader();
  void QueueResponse(Response response);
  void SendServerError(int status, std::string message);
  void Queue(std::string bytes);
  void Flush();
  void OnWrite(const boost::system::error_code& ec, size_t n);
  void FinishExchange();

  // Closing. StartClosing is the graceful way (after the last response);
  // Close the abrupt one, which tells an unfinished exchange's Responder
  // that the client is gone.
  void StartClosing();
  void Close(std::string_view why);
  void LogExchange(std::string_view why) const;

  void ArmReadTimer(Clock::duration timeout);
  void CancelReadTimer();

  Socket socket_;
  const std::shared_ptr<ServerState> server_;
  const std::string remote_;
  boost::asio::steady_timer read_timer_;
  boost::asio::steady_timer write_timer_;
  // Bumped on every arm and cancel, so that an expiry already queued when
  // its timer was re-armed or cancelled is recognised as stale.
  uint64_t read_timer_generation_ = 0;
  uint64_t write_timer_generation_ = 0;

  Phase phase_ = Phase::kIdle;
  bool shutting_down_ = false;
  bool peer_closed_ = false;  // EOF seen: the client sends nothing more

  std::array<char, 16 * 1024> read_chunk_;  // the outstanding read's target
  boost::beast::flat_buffer input_;         // read but not yet parsed
  bool reading_ = false;
  std::optional<Parser> parser_;
  Exchange exchange_;

  std::deque<std::string> output_;  // queued, in order; the front is partly written
  size_t output_offset_ = 0;        // bytes of output_.front() already written
  size_t pending_bytes_ = 0;        // queued and not yet written
  std::vector<boost::asio::const_buffer> write_buffers_;
  bool writing_ = false;
};

}  // namespace pagoda::http::internal
