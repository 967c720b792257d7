#include "pagoda/apps/bench_serve/sse_splitter.h"

namespace pagoda::apps::bench_serve {

std::vector<std::string> SseSplitter::Feed(std::string_view bytes) {
  std::vector<std::string> events;
  for (const char c : bytes) {
    if (after_cr_) {
      after_cr_ = false;
      if (c == '\n') continue;
    }
    if (c == '\r' || c == '\n') {
      after_cr_ = c == '\r';
      EndLine(events);
    } else {
      line_ += c;
    }
  }
  return events;
}

std::vector<std::string> SseSplitter::Finish() {
  std::vector<std::string> events;
  if (!line_.empty()) EndLine(events);
  EndLine(events);  // the missing blank line
  return events;
}

void SseSplitter::EndLine(std::vector<std::string>& events) {
  if (line_.empty()) {
    if (has_data_) events.push_back(std::move(data_));
    data_.clear();
    has_data_ = false;
    return;
  }
  const std::string_view line = line_;
  const size_t colon = line.find(':');
  if (colon != 0 && line.substr(0, colon) == "data") {
    std::string_view value = colon == std::string_view::npos ? std::string_view() : line.substr(colon + 1);
    if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    if (has_data_) data_ += '\n';
    data_ += value;
    has_data_ = true;
  }
  line_.clear();
}

}  // namespace pagoda::apps::bench_serve
