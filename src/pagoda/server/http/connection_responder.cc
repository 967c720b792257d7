#include "pagoda/server/http/connection_responder.h"

#include <exception>

#include <boost/asio/post.hpp>
#include <spdlog/spdlog.h>

#include "pagoda/server/http/connection.h"

namespace pagoda::http::internal {
namespace {

void RunCallback(const std::function<void()>& callback) {
  try {
    callback();
  } catch (const std::exception& e) {
    spdlog::error("http: OnClientGone callback threw: {}", e.what());
  }
}

}  // namespace

ConnectionResponder::ConnectionResponder(std::weak_ptr<Connection> connection, std::shared_ptr<Lifeline> lifeline)
    : connection_(std::move(connection)), lifeline_(std::move(lifeline)) {}

void ConnectionResponder::Send(Response response) {
  Post([response = std::move(response)](Connection& c, const ConnectionResponder* self) mutable {
    c.Send(self, std::move(response));
  });
}

void ConnectionResponder::StartStream(int status, std::string content_type, Headers headers, std::string keepalive) {
  Post([status, content_type = std::move(content_type), headers = std::move(headers),
        keepalive = std::move(keepalive)](Connection& c, const ConnectionResponder* self) mutable {
    c.StartStream(self, status, std::move(content_type), std::move(headers), std::move(keepalive));
  });
}

void ConnectionResponder::Write(std::string data) {
  Post([data = std::move(data)](Connection& c, const ConnectionResponder* self) mutable {
    c.Write(self, std::move(data));
  });
}

void ConnectionResponder::End() {
  Post([](Connection& c, const ConnectionResponder* self) { c.End(self); });
}

void ConnectionResponder::Post(std::function<void(Connection&, const ConnectionResponder*)> op) {
  if (finished_.load(std::memory_order_acquire)) return;
  std::shared_lock lock(lifeline_->mu);
  if (!lifeline_->alive) return;
  std::shared_ptr<Connection> connection = connection_.lock();
  if (connection == nullptr) return;
  // The task holds this Responder so that its address, which the connection
  // compares, cannot be reused by another one before the task runs.
  boost::asio::post(connection->executor(),
                    [connection, self = shared_from_this(), op = std::move(op)] { op(*connection, self.get()); });
}

void ConnectionResponder::OnClientGone(std::function<void()> callback) {
  {
    std::lock_guard lock(mu_);
    if (!gone_.load(std::memory_order_relaxed)) {
      on_gone_.push_back(std::move(callback));
      return;
    }
  }
  RunCallback(callback);
}

void ConnectionResponder::MarkGone() {
  std::vector<std::function<void()>> callbacks;
  {
    std::lock_guard lock(mu_);
    if (finished_.load(std::memory_order_relaxed)) return;
    finished_.store(true, std::memory_order_release);
    gone_.store(true, std::memory_order_release);
    callbacks.swap(on_gone_);
  }
  for (const auto& callback : callbacks) RunCallback(callback);
}

void ConnectionResponder::MarkComplete() {
  std::vector<std::function<void()>> unused;  // destroyed after the lock
  std::lock_guard lock(mu_);
  finished_.store(true, std::memory_order_release);
  unused.swap(on_gone_);
}

}  // namespace pagoda::http::internal
