// The threads that do a request's real work (JSON parsing, chat-template
// rendering, tokenization, adding it to the engine), so that the HTTP io
// threads only move bytes: /health, /metrics and running streams never wait
// behind one request's parsing.
#pragma once

#include <functional>
#include <memory>

namespace pagoda::server {

class RequestWorkers {
 public:
  explicit RequestWorkers(int threads);
  ~RequestWorkers();  // Join()
  RequestWorkers(const RequestWorkers&) = delete;
  RequestWorkers& operator=(const RequestWorkers&) = delete;

  // Runs `task` on a worker, in submission order per free worker.
  void Post(std::function<void()> task);
  // Runs what was posted, then stops the threads. Idempotent.
  void Join();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pagoda::server
