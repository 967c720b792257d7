// The server's open connections, so that Stop() can reach them and wait for
// them. The registry owns them: a connection lives until it closes itself
// (or the server is torn down), not only while it has I/O pending.
#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace pagoda::http::internal {

class Connection;

class ConnectionRegistry {
 public:
  // Registers `connection` and posts its Start, unless Stop has begun (then
  // it is dropped, which closes its socket).
  void Add(std::shared_ptr<Connection> connection);
  // A connection removes itself as it closes.
  void Remove(const Connection* connection);
  // From now on Add refuses. Returns the open connections.
  std::vector<std::shared_ptr<Connection>> BeginStop();
  std::vector<std::shared_ptr<Connection>> Open() const;
  // True if every connection has closed by `deadline`.
  bool WaitUntilEmpty(std::chrono::steady_clock::time_point deadline);
  // Drops the connections still registered; for after the io threads stopped.
  void Clear();

 private:
  mutable std::mutex mu_;
  std::condition_variable emptied_;
  bool stopping_ = false;
  std::unordered_map<const Connection*, std::shared_ptr<Connection>> open_;
};

}  // namespace pagoda::http::internal
