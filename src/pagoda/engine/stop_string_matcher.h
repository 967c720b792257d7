// Finds stop strings in a sequence's streamed output text. A stop string
// may straddle token boundaries, so text that could still be the start of
// one is held back until it can no longer be part of a match; on a match the
// output ends just before the stop string (or just after it, with
// include_stop_str_in_output).
//
// The cumulative text is vLLM's: at each delta, vLLM looks for the stop
// strings in list order, each at its first occurrence that ends inside the
// new text, and the first stop string found wins (not the one that occurs
// earliest). With include_stop_str_in_output nothing needs holding back: any
// later match ends after all text emitted so far, which it keeps.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pagoda {

class StopStringMatcher {
 public:
  // Stop strings must be non-empty (SamplingParams::Validate checks).
  StopStringMatcher(std::vector<std::string> stop, bool include_stop_str_in_output);

  struct Update {
    std::string text;                  // safe to emit now
    bool finished = false;             // a stop string matched; emit `text` and stop
    std::optional<size_t> stop_index;  // which one, into stop_strings()
  };

  // Takes the next detokenized delta, made of whole UTF-8 characters. With
  // check_stop false the delta is only buffered and emitted: vLLM does not
  // look for stop strings until more than min_tokens tokens are out, and
  // never looks back at text that ends before the current delta.
  // Must not be called after a match.
  Update Push(std::string_view delta, bool check_stop = true);

  // The text still held back, for when generation ends for another reason
  // (EOS, stop token, length, abort). Empty after a match.
  std::string Flush();

  const std::vector<std::string>& stop_strings() const { return stop_; }
  bool finished() const { return finished_; }

 private:
  // The length of the longest suffix of the unemitted text that is a proper
  // prefix of some stop string: the part that a later delta could complete.
  size_t HoldBackLength() const;

  std::vector<std::string> stop_;
  bool include_stop_str_in_output_;
  size_t max_stop_size_ = 0;
  // The recent text: [0, emitted_) was emitted and is kept only so a match
  // can start in it; the rest is held back.
  std::string buffer_;
  size_t emitted_ = 0;
  bool finished_ = false;
};

}  // namespace pagoda
