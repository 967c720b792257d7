#include "pagoda/tokenizer/incremental_detokenizer.h"

#include "pagoda/tokenizer/utf8.h"

namespace pagoda::tokenizer {

IncrementalDetokenizer::IncrementalDetokenizer(const Tokenizer& tokenizer, bool skip_special_tokens)
    : tokenizer_(tokenizer), skip_special_tokens_(skip_special_tokens) {}

StatusOr<std::string> IncrementalDetokenizer::Push(TokenId id) {
  PAGODA_ASSIGN_OR_RETURN(std::string_view piece, tokenizer_.TokenToPiece(id));
  std::string delta;
  if (skip_special_tokens_ && tokenizer_.IsSpecial(id)) return delta;
  if (at_start_ && !piece.empty()) {
    if (tokenizer_.strips_leading_space() && piece.front() == ' ') piece.remove_prefix(1);
    at_start_ = false;
  }
  pending_ += piece;
  const size_t consumed = AppendUtf8Lossy(pending_, /*at_end=*/false, &delta);
  pending_.erase(0, consumed);
  return delta;
}

std::string IncrementalDetokenizer::Finish() {
  std::string delta;
  AppendUtf8Lossy(pending_, /*at_end=*/true, &delta);
  pending_.clear();
  at_start_ = true;
  return delta;
}

}  // namespace pagoda::tokenizer
