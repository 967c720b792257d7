#include "pagoda/engine/stop_string_matcher.h"

#include <algorithm>

#include "pagoda/base/check.h"

namespace pagoda {

StopStringMatcher::StopStringMatcher(std::vector<std::string> stop, bool include_stop_str_in_output)
    : stop_(std::move(stop)), include_stop_str_in_output_(include_stop_str_in_output) {
  for (const std::string& s : stop_) {
    PAGODA_CHECK_MSG(!s.empty(), "empty stop string");
    max_stop_size_ = std::max(max_stop_size_, s.size());
  }
}

StopStringMatcher::Update StopStringMatcher::Push(std::string_view delta, bool check_stop) {
  PAGODA_CHECK_MSG(!finished_, "text pushed after a stop string matched");
  const size_t old_size = buffer_.size();
  buffer_.append(delta);
  Update update;
  if (check_stop && !delta.empty()) {
    for (size_t i = 0; i < stop_.size(); ++i) {
      const std::string& s = stop_[i];
      // Only occurrences that end inside the new text: older ones were
      // already looked for (or deliberately not, under min_tokens).
      const size_t from = old_size + 1 > s.size() ? old_size + 1 - s.size() : 0;
      const size_t at = buffer_.find(s, from);
      if (at == std::string::npos) continue;
      const size_t end = include_stop_str_in_output_ ? at + s.size() : at;
      // Held-back text covers every possible start of a match, so the cut
      // never falls inside text already emitted.
      PAGODA_CHECK(end >= emitted_);
      update.text = buffer_.substr(emitted_, end - emitted_);
      update.finished = true;
      update.stop_index = i;
      buffer_.clear();
      emitted_ = 0;
      finished_ = true;
      return update;
    }
  }
  const size_t emit_end = buffer_.size() - HoldBackLength();
  update.text = buffer_.substr(emitted_, emit_end - emitted_);
  emitted_ = emit_end;
  // Keep just enough emitted text for a match that starts in it and ends in
  // a later delta (possible only with include_stop_str_in_output).
  const size_t keep = max_stop_size_ > 0 ? max_stop_size_ - 1 : 0;
  if (emitted_ > keep) {
    buffer_.erase(0, emitted_ - keep);
    emitted_ = keep;
  }
  return update;
}

std::string StopStringMatcher::Flush() {
  std::string rest = buffer_.substr(emitted_);
  buffer_.clear();
  emitted_ = 0;
  return rest;
}

size_t StopStringMatcher::HoldBackLength() const {
  if (include_stop_str_in_output_) return 0;
  const std::string_view text = std::string_view(buffer_).substr(emitted_);
  size_t hold = 0;
  for (const std::string& s : stop_) {
    for (size_t k = std::min(s.size() - 1, text.size()); k > hold; --k) {
      if (text.ends_with(std::string_view(s).substr(0, k))) {
        hold = k;
        break;
      }
    }
  }
  return hold;
}

}  // namespace pagoda
