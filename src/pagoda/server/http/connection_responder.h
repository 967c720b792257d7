// The Responder handed to the handler. Its calls, from any thread, are
// posted to the connection's strand; whether the client is gone is kept
// here, so it can be read from any thread.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <vector>

#include "pagoda/server/http/response.h"

namespace pagoda::http::internal {

class Connection;

// Lets Responders outlive the Server: they post to a connection only while
// the io_context that would run the call still exists.
struct Lifeline {
  std::shared_mutex mu;
  bool alive = true;  // guarded by mu; cleared once the io threads are joined
};

class ConnectionResponder final : public Responder, public std::enable_shared_from_this<ConnectionResponder> {
 public:
  ConnectionResponder(std::weak_ptr<Connection> connection, std::shared_ptr<Lifeline> lifeline);

  void Send(Response response) override;
  void StartStream(int status, std::string content_type, Headers headers, std::string keepalive) override;
  void Write(std::string data) override;
  void End() override;
  void OnClientGone(std::function<void()> callback) override;
  bool client_gone() const override { return gone_.load(std::memory_order_acquire); }

  // The connection's side, on its strand.
  void MarkGone();      // runs the callbacks, unless the response completed
  void MarkComplete();  // the response was written: later calls do nothing

 private:
  // Posts op(connection, this) to the connection's strand, if there is still
  // one to post to.
  void Post(std::function<void(Connection&, const ConnectionResponder*)> op);

  const std::weak_ptr<Connection> connection_;
  const std::shared_ptr<Lifeline> lifeline_;
  std::atomic<bool> finished_{false};  // completed or gone
  std::atomic<bool> gone_{false};
  std::mutex mu_;
  std::vector<std::function<void()>> on_gone_;  // guarded by mu_
};

}  // namespace pagoda::http::internal
