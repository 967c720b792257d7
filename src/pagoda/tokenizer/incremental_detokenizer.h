// Streaming decode: feed generated ids one at a time and get text deltas that
// never split a UTF-8 sequence. Bytes of a sequence that later tokens may
// still complete are held back; ill-formed bytes become U+FFFD as soon as no
// continuation could make them valid. Byte-fallback tokens (SentencePiece's
// <0xXX>) are single bytes and go through the same hold-back. The deltas of
// every Push plus Finish concatenate to exactly Tokenizer::Decode of all the
// ids, including its dropping of a leading space.
#pragma once

#include <string>

#include "pagoda/base/status.h"
#include "pagoda/tokenizer/tokenizer.h"

namespace pagoda::tokenizer {

class IncrementalDetokenizer {
 public:
  // `tokenizer` must outlive this object.
  explicit IncrementalDetokenizer(const Tokenizer& tokenizer, bool skip_special_tokens = false);

  // The text `id` completes; often empty mid-sequence. OUT_OF_RANGE for an id
  // outside the vocabulary, leaving the state as it was.
  StatusOr<std::string> Push(TokenId id);

  // Ends the stream: held-back bytes of a sequence that never completed come
  // out as U+FFFD. The object is then ready for a new stream.
  std::string Finish();

  // Bytes held back waiting for the rest of a UTF-8 sequence (at most 3).
  size_t pending_bytes() const { return pending_.size(); }

 private:
  const Tokenizer& tokenizer_;
  bool skip_special_tokens_;
  std::string pending_;
  bool at_start_ = true;  // no byte of the stream seen yet
};

}  // namespace pagoda::tokenizer
