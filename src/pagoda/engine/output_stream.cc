#include "pagoda/engine/output_stream.h"

#include "pagoda/base/check.h"

namespace pagoda {

std::optional<RequestOutput> OutputStream::Next() {
  std::unique_lock lock(mu_);
  ready_.wait(lock, [&] { return !queue_.empty() || drained_; });
  return PopLocked();
}

std::optional<RequestOutput> OutputStream::TryNext() {
  std::lock_guard lock(mu_);
  return PopLocked();
}

bool OutputStream::finished() const {
  std::lock_guard lock(mu_);
  return finished_;
}

std::optional<RequestOutput> OutputStream::PopLocked() {
  if (queue_.empty()) return std::nullopt;
  RequestOutput out = std::move(queue_.front());
  queue_.pop_front();
  if (out.finished) drained_ = true;
  return out;
}

void OutputStream::SetListener(std::function<void()> on_ready) {
  auto listener = std::make_shared<std::function<void()>>(std::move(on_ready));
  bool waiting = false;
  {
    std::lock_guard lock(mu_);
    listener_ = listener;
    waiting = !queue_.empty();
  }
  if (waiting) (*listener)();
}

void OutputStream::Push(RequestOutput output) {
  std::shared_ptr<std::function<void()>> listener;
  {
    std::lock_guard lock(mu_);
    listener = listener_;
    PAGODA_CHECK_MSG(!finished_, "output pushed after the finished one");
    finished_ = output.finished;
    if (cumulative_ && !queue_.empty()) {
      queue_.back() = std::move(output);
    } else {
      queue_.push_back(std::move(output));
    }
  }
  ready_.notify_all();
  if (listener) (*listener)();
}

}  // namespace pagoda
