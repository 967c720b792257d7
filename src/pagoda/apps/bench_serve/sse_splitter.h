// Splits a Server-Sent Events byte stream into the data of its events, as
// the HTML standard's event-stream parser does: lines end in LF, CRLF or CR;
// "data:" lines (one leading space dropped) accumulate, joined by LF, until
// a blank line dispatches them; comments (":...") and other fields are
// skipped. Bytes may arrive cut anywhere, even inside a CRLF.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace pagoda::apps::bench_serve {

class SseSplitter {
 public:
  // Appends `bytes`; returns the data of each event they complete.
  std::vector<std::string> Feed(std::string_view bytes);
  // At the end of the stream: an event whose blank line never came (some
  // servers close right after the last "data:" line), if any.
  std::vector<std::string> Finish();

 private:
  void EndLine(std::vector<std::string>& events);

  std::string line_;
  std::string data_;
  bool has_data_ = false;
  bool after_cr_ = false;  // the last byte was CR: an LF next belongs to it
};

}  // namespace pagoda::apps::bench_serve
