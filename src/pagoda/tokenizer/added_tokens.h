// Finds added tokens (special and user-defined vocabulary entries that are
// matched verbatim) in text before pre-tokenization. Like Hugging Face's
// AddedVocabulary, the scan takes the leftmost match, and the longest token
// among those starting there; a token flagged lstrip or rstrip also takes
// the whitespace (Unicode White_Space, as Rust's char::is_whitespace) before
// or after it, back to the previous match at most.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "pagoda/tokenizer/tokenizer_spec.h"

namespace pagoda::tokenizer {

class AddedTokenMatcher {
 public:
  struct Entry {
    std::string text;
    TokenId id;
    bool special;  // a kControl token: only matched when parsing special tokens
    bool lstrip = false;
    bool rstrip = false;
  };

  // A text segment: either a run of ordinary text (id < 0) or one added token.
  struct Segment {
    std::string_view text;
    TokenId id;
  };

  explicit AddedTokenMatcher(std::vector<Entry> entries);

  // Splits `text` into ordinary runs and added tokens, in order. Control
  // tokens are recognized only when `parse_special` is set.
  void Split(std::string_view text, bool parse_special, std::vector<Segment>* out) const;

 private:
  // Entries starting with each byte, longest first.
  std::vector<Entry> by_first_byte_[256];
};

}  // namespace pagoda::tokenizer
