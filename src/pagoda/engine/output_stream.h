// The channel from the engine thread to one request's consumer: the engine
// pushes RequestOutputs, the consumer blocks on or polls them. The stream
// ends with the output whose `finished` is set.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "pagoda/engine/request_output.h"

namespace pagoda {

class OutputStream {
 public:
  explicit OutputStream(std::string request_id, bool cumulative)
      : request_id_(std::move(request_id)), cumulative_(cumulative) {}

  const std::string& request_id() const { return request_id_; }

  // Waits for the next output; nullopt once the finished one was taken.
  std::optional<RequestOutput> Next();
  // The next output if one is ready; never blocks.
  std::optional<RequestOutput> TryNext();
  // True once the finished output was pushed (it may not be taken yet).
  bool finished() const;
  // For consumers that must not block (the server's I/O threads): `on_ready`
  // runs after every Push, on the engine thread, and once now if outputs
  // are already waiting; it should only schedule a TryNext() elsewhere.
  void SetListener(std::function<void()> on_ready);

  // Engine side. Cumulative outputs replace an untaken older one, since each
  // holds everything so far; deltas queue up, since each holds only its part.
  void Push(RequestOutput output);

 private:
  std::optional<RequestOutput> PopLocked();

  const std::string request_id_;
  const bool cumulative_;
  mutable std::mutex mu_;
  std::condition_variable ready_;
  std::deque<RequestOutput> queue_;
  std::shared_ptr<std::function<void()>> listener_;  // copied out of the lock to call
  bool finished_ = false;  // the finished output was pushed
  bool drained_ = false;   // and taken
};

}  // namespace pagoda
