#include "pagoda/server/http/http_server.h"

#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "pagoda/base/check.h"
#include "pagoda/server/http/connection.h"
#include "pagoda/server/http/open_file_limit.h"
#include "pagoda/server/http/server_state.h"

namespace pagoda::http {
namespace {

namespace asio = boost::asio;
using asio::ip::tcp;
using boost::system::error_code;

// After an accept error (out of descriptors, typically), wait before the
// next try instead of spinning.
constexpr auto kAcceptRetryDelay = std::chrono::milliseconds(100);
// How long Stop waits for force-closed connections to run their close.
constexpr auto kForceCloseWait = std::chrono::seconds(5);

}  // namespace

struct Server::Impl {
  explicit Impl(int io_threads) : io_context(io_threads) {}

  void Accept();
  void OnAccept(const error_code& ec, tcp::socket socket);

  // Declared first, destroyed last: everything below uses it.
  asio::io_context io_context;
  asio::executor_work_guard<asio::io_context::executor_type> work{io_context.get_executor()};
  asio::strand<asio::io_context::executor_type> accept_strand{asio::make_strand(io_context)};
  tcp::acceptor acceptor{accept_strand};
  asio::steady_timer accept_retry{accept_strand};
  std::shared_ptr<internal::ServerState> state = std::make_shared<internal::ServerState>();
  std::vector<std::thread> threads;
  uint16_t port = 0;
  std::mutex stop_mu;
  bool stopped = false;  // guarded by stop_mu
};

void Server::Impl::Accept() {
  // Each connection gets its own strand, the executor of its socket.
  acceptor.async_accept(asio::make_strand(io_context),
                        [this](const error_code& ec, tcp::socket socket) { OnAccept(ec, std::move(socket)); });
}

void Server::Impl::OnAccept(const error_code& ec, tcp::socket socket) {
  if (!acceptor.is_open()) return;  // Stop closed it
  if (ec) {
    spdlog::warn("http: accept failed: {}", ec.message());
    accept_retry.expires_after(kAcceptRetryDelay);
    accept_retry.async_wait([this](const error_code& wait_ec) {
      if (!wait_ec && acceptor.is_open()) Accept();
    });
    return;
  }
  state->registry.Add(std::make_shared<internal::Connection>(std::move(socket), state));
  Accept();
}

StatusOr<std::unique_ptr<Server>> Server::Start(ServerConfig config, Handler handler) {
  if (config.io_threads < 1) return InvalidArgumentError("http: io_threads must be at least 1");
  if (!handler) return InvalidArgumentError("http: no handler");
  internal::RaiseOpenFileLimit();

  auto impl = std::make_unique<Impl>(config.io_threads);
  const std::string where = fmt::format("{}:{}", config.host, config.port);
  error_code ec;
  tcp::resolver resolver(impl->io_context);
  const auto endpoints = resolver.resolve(config.host, std::to_string(config.port),
                                          tcp::resolver::passive | tcp::resolver::numeric_service, ec);
  if (ec || endpoints.empty()) {
    return InvalidArgumentError(fmt::format("http: cannot resolve {}: {}", config.host, ec.message()));
  }
  const tcp::endpoint endpoint = endpoints.begin()->endpoint();
  tcp::acceptor& acceptor = impl->acceptor;
  if (acceptor.open(endpoint.protocol(), ec); ec) {
    return InternalError(fmt::format("http: cannot open a socket for {}: {}", where, ec.message()));
  }
  // Lets a restarted server bind while old connections sit in TIME_WAIT; on
  // Linux it does not let two servers share a port.
  acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
  if (acceptor.bind(endpoint, ec); ec) {
    return FailedPreconditionError(fmt::format("http: cannot listen on {}: {}", where, ec.message()));
  }
  if (acceptor.listen(asio::socket_base::max_listen_connections, ec); ec) {
    return FailedPreconditionError(fmt::format("http: cannot listen on {}: {}", where, ec.message()));
  }
  impl->port = acceptor.local_endpoint().port();
  impl->state->config = std::move(config);
  impl->state->handler = std::move(handler);

  asio::post(impl->accept_strand, [raw = impl.get()] { raw->Accept(); });
  const int io_threads = impl->state->config.io_threads;
  for (int i = 0; i < io_threads; ++i) {
    impl->threads.emplace_back([raw = impl.get()] { raw->io_context.run(); });
  }
  return std::unique_ptr<Server>(new Server(std::move(impl)));
}

Server::Server(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Server::~Server() { Stop(std::chrono::milliseconds(0)); }

uint16_t Server::port() const { return impl_->port; }

void Server::Stop(std::chrono::milliseconds grace) {
  Impl& impl = *impl_;
  std::lock_guard lock(impl.stop_mu);
  if (impl.stopped) return;
  PAGODA_CHECK_MSG(!impl.io_context.get_executor().running_in_this_thread(),
                   "http::Server::Stop must not be called from an io thread");
  internal::ConnectionRegistry& registry = impl.state->registry;

  asio::post(impl.accept_strand, [&impl] {
    error_code ignored;
    impl.acceptor.close(ignored);
    impl.accept_retry.cancel();
  });
  for (const auto& connection : registry.BeginStop()) {
    asio::post(connection->executor(), [connection] { connection->BeginShutdown(); });
  }
  if (!registry.WaitUntilEmpty(std::chrono::steady_clock::now() + grace)) {
    for (const auto& connection : registry.Open()) {
      asio::post(connection->executor(), [connection] { connection->ForceClose(); });
    }
    if (!registry.WaitUntilEmpty(std::chrono::steady_clock::now() + kForceCloseWait)) {
      spdlog::warn("http: connections did not close in time; is a handler blocking an io thread?");
    }
  }

  impl.work.reset();
  impl.io_context.stop();
  for (std::thread& thread : impl.threads) thread.join();
  impl.threads.clear();
  registry.Clear();
  {
    // From here on Responders post nothing: the io_context is about to go.
    std::unique_lock lifeline_lock(impl.state->lifeline->mu);
    impl.state->lifeline->alive = false;
  }
  impl.stopped = true;
}

}  // namespace pagoda::http
