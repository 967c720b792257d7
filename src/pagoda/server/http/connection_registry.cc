#include "pagoda/server/http/connection_registry.h"

#include <boost/asio/post.hpp>

#include "pagoda/server/http/connection.h"

namespace pagoda::http::internal {

void ConnectionRegistry::Add(std::shared_ptr<Connection> connection) {
  std::lock_guard lock(mu_);
  if (stopping_) return;
  // Posted under the lock so that Stop's BeginShutdown, posted after it
  // takes the lock, reaches the connection after its Start.
  boost::asio::post(connection->executor(), [connection] { connection->Start(); });
  open_.emplace(connection.get(), std::move(connection));
}

void ConnectionRegistry::Remove(const Connection* connection) {
  std::shared_ptr<Connection> removed;  // released after the lock
  std::lock_guard lock(mu_);
  auto it = open_.find(connection);
  if (it == open_.end()) return;
  removed = std::move(it->second);
  open_.erase(it);
  if (open_.empty()) emptied_.notify_all();
}

std::vector<std::shared_ptr<Connection>> ConnectionRegistry::BeginStop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  return Open();
}

std::vector<std::shared_ptr<Connection>> ConnectionRegistry::Open() const {
  std::lock_guard lock(mu_);
  std::vector<std::shared_ptr<Connection>> connections;
  connections.reserve(open_.size());
  for (const auto& [key, connection] : open_) connections.push_back(connection);
  return connections;
}

bool ConnectionRegistry::WaitUntilEmpty(std::chrono::steady_clock::time_point deadline) {
  std::unique_lock lock(mu_);
  return emptied_.wait_until(lock, deadline, [&] { return open_.empty(); });
}

void ConnectionRegistry::Clear() {
  std::unordered_map<const Connection*, std::shared_ptr<Connection>> dropped;
  std::lock_guard lock(mu_);
  dropped.swap(open_);
}

}  // namespace pagoda::http::internal
